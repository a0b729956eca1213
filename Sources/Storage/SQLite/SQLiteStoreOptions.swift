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
    /// The write connection's page cache (`PRAGMA cache_size`, KiB). Each commit inserts into several B-trees at
    /// pages all over the file (per-user logs, message indexes, idempotency keys); a page the cache lost is read
    /// back with one `pread` inside the commit, so the writer keeps a larger cache than SQLite's 2 MiB default.
    public var writerCacheKiB = 16 * 1024
    /// WAL pages written between two checkpoints. The checkpoints run on their own connection and thread
    /// (`WALCheckpointer`), beside the commits; a checkpoint copies each page once however often it changed and ends
    /// in an `fdatasync`, so a longer interval means less copying per commit and a longer WAL.
    public var walCheckpointPages = 4000
    /// The WAL's length (pages) past which the checkpointer starts it over: it holds the writer between two
    /// transactions for one last checkpoint of the frames committed since the previous one (`WALCheckpointer`).
    /// The WAL file is cut back to this size when it starts over (`journal_size_limit`). Kept short on purpose: a WAL
    /// that grows into new blocks makes commits wait on the file system while a checkpoint syncs; one that starts over writes into blocks it already has.
    public var walResetPages = 8000
    /// Whether the write connection gathers a transaction's WAL frames into one `pwrite` (the `sb-wal` VFS) instead of
    /// SQLite's two per page (frame header, page). Durability is the same: the frames reach the OS inside the commit,
    /// before readers can see it. Off only to measure the difference.
    public var gatherWalWrites = true

    /// Options with the defaults above for the database at `path`.
    public init(path: String) {
        self.path = path
    }
}
