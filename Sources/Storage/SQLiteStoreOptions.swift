/// How `SQLiteGatewayStore` opens and writes its database file.
public struct SQLiteStoreOptions: Sendable {
    /// How hard each commit waits for the disk (`PRAGMA synchronous`, in WAL mode).
    public enum Synchronous: Sendable, Equatable {
        /// A commit is durable once it reached the OS: survives `kill -9` of the process, not a power loss.
        case normal
        /// Every commit is fsync'ed: survives a power loss too, at a large cost in commits per second.
        case full
    }

    /// The database file; created (with its `-wal`/`-shm` siblings) when missing. Its directory must exist.
    public var path: String
    /// `.normal` by default: the load target (~20 000 appends/s) needs it, and it keeps every reported write
    /// across a process crash.
    public var synchronous: Synchronous = .normal
    /// How long a connection waits for a lock held by another process before failing with SQLITE_BUSY.
    public var busyTimeoutMs = 5000
    /// The most `StoreWrite`s grouped into one transaction. A single batch larger than this still commits alone
    /// (a batch is never split).
    public var maxBatchWrites = 5000

    /// Options with the defaults above for the database at `path`.
    public init(path: String) {
        self.path = path
    }
}
