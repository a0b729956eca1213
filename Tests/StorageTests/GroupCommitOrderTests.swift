import Foundation
import Gateway
import Synchronization
import Testing
@testable import Storage

/// The writer keeps one node's appends to a log in the order they were made (`AppendOrder`), also across its
/// rounds: a batch queued while the round that took back an earlier append to its log was still running was made
/// before its submitter could hear of that failure, and is refused too.
@Suite struct GroupCommitOrderTests {
    /// A started writer on a backend where another node already took offset 1 of user u, and a recorder for outcomes.
    func writerBehindAnotherNode() throws -> (LogBackend, GroupCommitWriter<LogBackend>, Recorder<(String, StoreConflict?)>) {
        let backend = LogBackend()
        backend.committed.withLock { $0["u"] = 1 }
        let writer = GroupCommitWriter(connection: backend, maxBatchWrites: 100)
        try writer.start()
        return (backend, writer, Recorder())
    }

    @Test func aBatchQueuedWhileAnEarlierAppendFailedIsRefusedInTheNextRoundAndARetryAfterItIsNot() throws {
        let (backend, writer, results) = try writerBehindAnotherNode()
        defer { writer.stop() }
        func submit(_ name: String, _ offset: Int64) {
            #expect(writer.submit(.batches([[event("u", offset)]]) { errors in results.record((name, errors[0]?.conflict)) }))
        }
        backend.holdNextAppend()
        submit("first", 1)             // the node still believes the log is empty
        backend.waitUntilHeld()        // the writer's round has taken it
        submit("second", 2)            // made before the node could hear that "first" lost: it fits, but must wait
        backend.release()
        #expect(results.wait(for: 2).map(\.0) == ["first", "second"])
        #expect(results.wait(for: 2).map(\.1) == [.offsetTaken(userId: "u", latest: 1), .offsetTaken(userId: "u", latest: 1)])
        // The retries, made after the node heard, go through in order.
        submit("first again", 2)
        submit("second again", 3)
        #expect(results.wait(for: 4).suffix(2).map(\.1) == [nil, nil])
        #expect(backend.committed.withLock { $0["u"] } == 3)
    }

    /// The retry of the batch that lost, made once its submitter heard, lands in the next round behind the older batch
    /// refused for that loss: it must not be held up by that refusal (else the older one would be retried first).
    @Test func aRetryQueuedBehindABatchRefusedForTheLastRoundsFailureCommits() throws {
        let (backend, writer, results) = try writerBehindAnotherNode()
        defer { writer.stop() }
        let record: @Sendable (String) -> @Sendable ([StorageError?]) -> Void = { name in { results.record((name, $0[0]?.conflict)) } }
        backend.holdNextAppend()
        // "first" loses; its submitter hears of it in the completion and retries at once (offset 2).
        #expect(writer.submit(.batches([[event("u", 1)]]) { errors in
            record("first")(errors)
            _ = writer.submit(.batches([[event("u", 2)]], record("first again")))
        }))
        backend.waitUntilHeld()
        #expect(writer.submit(.batches([[event("u", 2)]], record("second"))))   // made before hearing: refused
        backend.release()
        let outcomes = results.wait(for: 3)
        #expect(outcomes.map(\.0) == ["first", "second", "first again"])
        #expect(outcomes.map(\.1) == [.offsetTaken(userId: "u", latest: 1), .offsetTaken(userId: "u", latest: 1), nil])
        #expect(writer.submit(.batches([[event("u", 3)]], record("second again"))))
        #expect(results.wait(for: 4).last?.1 == nil)
        #expect(backend.committed.withLock { $0["u"] } == 3)
    }
}

/// A writer backend in memory holding each log's latest offset, with the stores' next-offset rule, transactions and
/// one savepoint; `holdNextAppend` stops the writer inside its next append until `release`.
final class LogBackend: GroupCommitBackend, Sendable {
    let committed = Mutex<[String: Int64]>([:])
    private let working = Mutex<(open: Bool, logs: [String: Int64], savepoint: [String: Int64])>((false, [:], [:]))
    private let hold = Mutex(false)
    private let held = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    func holdNextAppend() { hold.withLock { $0 = true } }
    func waitUntilHeld() { #expect(held.wait(timeout: .now() + 30) == .success) }
    func release() { released.signal() }

    var name: String { "in-memory log" }
    var isAutocommit: Bool { !working.withLock { $0.open } }
    func begin() throws(StorageError) {
        let logs = committed.withLock { $0 }
        working.withLock { $0 = (true, logs, logs) }
    }
    func run(_ sql: String) throws(StorageError) {
        switch sql {
        case "SAVEPOINT batch": working.withLock { $0.savepoint = $0.logs }
        case "ROLLBACK TO batch": working.withLock { $0.logs = $0.savepoint }
        case "COMMIT":
            let logs = working.withLock { $0.open = false; return $0.logs }
            committed.withLock { $0 = logs }
        case "ROLLBACK": working.withLock { $0.open = false }
        default: break
        }
    }
    func apply(_ write: StoreWrite) throws(StorageError) {
        guard case .appendEvent(let event) = write else { return }
        let holding = hold.withLock { hold -> Bool in
            defer { hold = false }
            return hold
        }
        if holding {
            held.signal()
            _ = released.wait(timeout: .now() + 30)
        }
        let latest = working.withLock { $0.logs[event.userId] ?? 0 }
        guard event.offset == latest + 1 else { throw StorageError(conflict: .offsetTaken(userId: event.userId, latest: latest)) }
        working.withLock { $0.logs[event.userId] = event.offset }
    }
    func latestOffset(userId: String) throws(StorageError) -> Int64 {
        let open = working.withLock { state -> Int64? in state.open ? state.logs[userId] ?? 0 : nil }
        return open ?? committed.withLock { $0[userId] ?? 0 }
    }
    func close() {}
}
