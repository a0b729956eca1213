import Foundation

/// Where the client keeps the offset of the last event the app has handled (docs/PROTOCOL.md, "Connecting,
/// acknowledging and resuming"). The client resumes from it after every reconnect and after an app restart.
///
/// Called from the client's actor; implementations must be thread-safe.
public protocol OffsetStore: Sendable {
    /// The stored offset, or nil when this device never handled an event (it then starts live).
    func load() -> Int64?
    /// Records that every event up to `offset` is handled. Called with increasing offsets, except once after a
    /// resume finds the stored offset ahead of the server's log: then with the server's latest offset.
    func save(_ offset: Int64)
}

/// Keeps the offset in memory: resume works across reconnects, not across app restarts.
/// `@unchecked Sendable`: the value is guarded by `lock` (Mutex needs iOS 18 and macOS 15; the client supports iOS 16 and macOS 13).
public final class InMemoryOffsetStore: OffsetStore, @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int64?
    public init(_ initial: Int64? = nil) { value = initial }
    public func load() -> Int64? { lock.withLock { value } }
    public func save(_ offset: Int64) { lock.withLock { value = offset } }
}

/// Keeps the offset in a small text file (written atomically: a crash leaves the old or the new value).
/// `@unchecked Sendable`: the cached value and the file are guarded by `lock`.
public final class FileOffsetStore: OffsetStore, @unchecked Sendable {
    /// The file's path.
    public let path: String
    private let lock = NSLock()
    private var cached: Int64?

    /// Reads the file at `path` if it exists; a missing or unreadable file means "no offset".
    public init(path: String) {
        self.path = path
        let text = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        cached = text.flatMap { Int64($0) }
    }

    public func load() -> Int64? { lock.withLock { cached } }

    public func save(_ offset: Int64) {
        lock.withLock {
            cached = offset
            // A failed write loses only progress: the events are replayed again after a restart.
            try? "\(offset)\n".write(toFile: path, atomically: true, encoding: .utf8)
        }
    }
}
