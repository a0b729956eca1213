import Dispatch
import Foundation
import Gateway
import Synchronization
@testable import Storage
@_exported import TestSupport

/// A fresh directory under the system temp dir, removed (with every database file in it) on deinit.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("storage-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String = "gateway.db") -> String { url.appendingPathComponent(name).path }
}

/// Collects values from completions that run on other threads.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func record(_ value: Value) {
        values.withLock { $0.append(value) }
        arrived.signal()
    }

    /// Blocks until `count` values arrived in total (or 30 s passed); returns them in arrival order.
    func wait(for count: Int) -> [Value] {
        while values.withLock({ $0.count }) < count {
            if arrived.wait(timeout: .now() + 30) == .timedOut { break }
        }
        return values.withLock { $0 }
    }
}

/// Submits the batches back to back, then waits for all completions; returns their errors in completion order.
@discardableResult
func commit(_ store: any GatewayStore, _ batches: [[StoreWrite]]) -> [String?] {
    let recorder = Recorder<String?>()
    for batch in batches { store.write(batch) { error in recorder.record(error.map { "\($0)" }) } }
    return recorder.wait(for: batches.count)
}

/// Cuts `writes` into consecutive batches of random sizes 1…max (deterministic for a given generator).
func randomSplit(_ writes: [StoreWrite], max: Int, using rng: inout some RandomNumberGenerator) -> [[StoreWrite]] {
    var batches: [[StoreWrite]] = []
    var index = 0
    while index < writes.count {
        let size = Int.random(in: 1...max, using: &rng)
        batches.append(Array(writes[index..<Swift.min(writes.count, index + size)]))
        index += size
    }
    return batches
}


func event(_ user: String, _ offset: Int64, createdAt: Int64 = 1_000, payload: [UInt8] = [1, 2, 3]) -> StoreWrite {
    .appendEvent(StoredEvent(userId: user, offset: offset, type: "message", payload: payload, createdAt: createdAt))
}

/// Events for `users` users, `perUser` each, with payloads of `bytes` bytes: many pages all over the events tree.
func spreadEvents(users: Int, perUser: Int, from first: Int64 = 1, bytes: Int = 200) -> [StoreWrite] {
    (0..<perUser).flatMap { step in
        (0..<users).map { user in event("user-\(user)", first + Int64(step), payload: Array(repeating: UInt8(user % 251), count: bytes)) }
    }
}

/// Opens a SQLite store on `path` with small test-friendly options.
func openStore(_ path: String, maxBatchWrites: Int = 5000) throws -> SQLiteGatewayStore {
    var options = SQLiteStoreOptions(path: path)
    options.maxBatchWrites = maxBatchWrites
    return try SQLiteGatewayStore(options: options)
}
