import Gateway
import Synchronization

/// The production `GatewayStore`: one SQLite file in WAL mode.
///
/// Writes: `write` only queues; one dedicated writer thread owning the write connection group-commits everything
/// queued since its last commit (see `GroupCommitWriter`) and then runs the completions, on that thread, in
/// submission order. A completion with `nil` means the batch is committed and visible to every reader; with
/// `SQLiteStoreOptions.Synchronous.normal` it also survives `kill -9` of the process (not a power loss: use `.full`).
/// A failing batch (e.g. an event offset that already exists — a domain bug) gets a `StorageError` and none of its
/// writes are kept; other batches in the same transaction still commit.
///
/// Reads use a separate read-only connection guarded by a lock, so they block each other but never the writer;
/// they may block on disk and must not run on an event-loop thread. `pruneEvents` is a write: it is queued to the
/// writer and the caller blocks until it has committed.
///
/// All methods may be called from any thread. After `close()` writes fail with a `StorageError` at once and
/// reads throw.
public final class SQLiteGatewayStore: RelationalGatewayStore, @unchecked Sendable {
    // @unchecked: the read connection is guarded by `readLock`; writes go through the thread-safe writer queue.
    let path: String
    var storeName: String { path }
    let writer: GroupCommitWriter<SQLiteWriteBackend>
    let checkpointer: WALCheckpointer
    /// Whether the write connection gathers its WAL writes, and if not why (a refusal is worth a warning at startup).
    public let walGathering: WALGathering
    private let readLock = ConditionLock()
    private let idCounters = Mutex<[IdSequence: Int64]>([:])
    private var readConnection: SQLiteConnection?  // guarded by readLock; nil once closed

    /// Opens or creates the database, switches it to WAL, runs pending schema migrations and starts the writer and
    /// checkpoint threads. Throws a `StorageError` naming the path when the file cannot be opened, is not a SQLite database,
    /// or has a schema newer than this build.
    public init(options: SQLiteStoreOptions) throws(StorageError) {
        path = options.path
        let writeConnection = try SQLiteConnection(
            path: options.path, readOnly: false, busyTimeoutMs: options.busyTimeoutMs,
            gatherWalWrites: options.gatherWalWrites)
        walGathering = writeConnection.walGathering
        do throws(StorageError) {
            let mode = try writeConnection.queryFirst("PRAGMA journal_mode = WAL") { $0.string(0) }
            guard mode?.lowercased() == "wal" else {
                throw StorageError("\(options.path): cannot switch to WAL mode (journal_mode is \(mode ?? "unknown"))")
            }
            let synchronous = options.synchronous == .full ? "FULL" : "NORMAL"
            try writeConnection.execute("PRAGMA synchronous = \(synchronous)")
            try writeConnection.execute("PRAGMA cache_size = -\(max(1, options.writerCacheKiB))")
            // Migrations checkpoint by themselves; the checkpointer takes over below.
            try writeConnection.execute("PRAGMA wal_autocheckpoint = \(max(1, options.walCheckpointPages))")
            try writeConnection.execute("PRAGMA journal_size_limit = \(max(1, options.walResetPages) * 4096)")
            try SchemaMigrations.migrate(writeConnection)
            // One process serves a SQLite file: claims on push jobs are this file's previous process's, which is gone
            // (a crash mid-send). Its jobs are due again at once rather than when their leases run out.
            try writeConnection.execute(
                "UPDATE push_jobs SET claimed_by = NULL, lease_until = NULL WHERE lease_until IS NOT NULL")
            readConnection = try SQLiteConnection(
                path: options.path, readOnly: true, busyTimeoutMs: options.busyTimeoutMs)
            checkpointer = try WALCheckpointer(options: options)
            // From here on the write connection never checkpoints: its commits only tell the checkpointer the WAL's length.
            try writeConnection.execute("PRAGMA wal_autocheckpoint = 0")
        } catch {
            writeConnection.close()
            readConnection?.close()
            throw error
        }
        writeConnection.onWALCommit { [checkpointer] frames in checkpointer.walCommitted(frames: frames) }
        writer = GroupCommitWriter(
            connection: SQLiteWriteBackend(connection: writeConnection, checkpointer: checkpointer),
            maxBatchWrites: options.maxBatchWrites)
        do {
            try checkpointer.start()
            try writer.start()
        } catch {
            checkpointer.stop()
            writeConnection.close()
            readConnection?.close()
            throw error
        }
    }

    deinit { close() }

    /// Stops accepting writes, commits everything already queued (running its completions), stops the writer
    /// thread, then the checkpoint thread, and closes the connections. Idempotent. Do not call it from a write completion if you need it to
    /// wait: on the writer thread it only requests the stop.
    public func close() {
        writer.stop()  // first: a writer held for a WAL reset is let go by the checkpointer
        checkpointer.stop()
        readLock.withLock {
            readConnection?.close()
            readConnection = nil
        }
    }

    /// The write connection's writes as SQLite made them and the `pwrite`s they became
    /// (`SQLiteConnection.gatheredWrites`); waits for every write queued before it.
    func walWrites() throws(StorageError) -> GatheredWrites {
        guard let counts = try writer.runAlone({ backend throws(StorageError) in backend.connection.gatheredWrites })
        else {
            throw StorageError("\(path): store is closed")
        }
        return counts
    }

    /// Arms `fault` on the write connection's WAL (`SQLiteConnection.injectWALFault`), after every write queued
    /// before it: the next commit meets it. For tests.
    func injectWALFault(_ fault: WALFault) throws(StorageError) {
        guard
            try writer.runAlone({ backend throws(StorageError) in try backend.connection.injectWALFault(fault) }) != nil
        else {
            throw StorageError("\(path): store is closed")
        }
    }

    // MARK: GatewayStore

    /// The store's own counter per sequence, started from the highest id in the file at the first reservation (one
    /// process writes a file; a second one on the same file, as tests play a second node, meets a taken id at the
    /// insert and asks again `above` it).
    public func reserveIds(_ sequence: IdSequence, count: Int, above: Int64) throws -> [Int64] {
        var start = idCounters.withLock { $0[sequence] }
        if start == nil {
            start = try read { reader throws(StorageError) in
                sequence == .message ? try reader.latestMessageId() : try reader.latestApprovalSequence()
            }
        }
        return idCounters.withLock { counters in
            let first = max(counters[sequence] ?? 0, start ?? 0, above) + 1
            counters[sequence] = first + Int64(count) - 1
            return Array(first..<first + Int64(count))
        }
    }

    /// The counter in memory once the first reservation began it; nil before (that one reads the file).
    public func reserveIdsWithoutBlocking(_ sequence: IdSequence, count: Int, above: Int64) -> [Int64]? {
        idCounters.withLock { counters in
            guard let current = counters[sequence] else { return nil }
            let first = max(current, above) + 1
            counters[sequence] = first + Int64(count) - 1
            return Array(first..<first + Int64(count))
        }
    }

    /// Several keys under one hold of the read connection, in one read transaction (one WAL read lock, not one per key).
    public func idempotentResponses(_ keys: [IdempotencyKey]) throws -> [IdempotencyRecord?] {
        try read { reader throws(StorageError) in
            guard keys.count > 1 else {
                return try keys.map { key throws(StorageError) in
                    try reader.idempotentResponse(scope: key.scope, key: key.key)
                }
            }
            try reader.db.run("BEGIN")
            defer { try? reader.db.run("COMMIT") }
            var records: [IdempotencyRecord?] = []
            records.reserveCapacity(keys.count)
            for key in keys { records.append(try reader.idempotentResponse(scope: key.scope, key: key.key)) }
            return records
        }
    }

    func read<R>(_ body: (RelationalReader<SQLiteConnection>) throws(StorageError) -> R) throws(StorageError) -> R {
        readLock.lock()
        defer { readLock.unlock() }
        guard let readConnection else { throw StorageError("\(path): store is closed") }
        return try body(RelationalReader(db: readConnection))
    }
}

/// The SQLite write connection as the group-commit writer drives it.
struct SQLiteWriteBackend: RelationalWriteBackend {
    let connection: SQLiteConnection
    let checkpointer: WALCheckpointer
    /// Each log's highest offset as this connection stored it; kept in step with the transaction and its savepoints
    /// by the calls below.
    let logHeads = LogHeadCache()
    /// `PRAGMA data_version` when the last transaction began: it moves when another connection commits.
    private let dataVersion = DataVersion()
    var db: SQLiteConnection { connection }
    var applier: RelationalWriteApplier<SQLiteEngineWrites> {
        RelationalWriteApplier(engine: SQLiteEngineWrites(db: connection, logHeads: logHeads))
    }
    var name: String { connection.path }
    var isAutocommit: Bool { connection.isAutocommit }

    init(connection: SQLiteConnection, checkpointer: WALCheckpointer) {
        self.connection = connection
        self.checkpointer = checkpointer
    }

    /// IMMEDIATE takes the write lock at once, so a second process waits here rather than failing at COMMIT. Once it
    /// holds the lock, a moved `data_version` (another connection committed since) makes the log heads start over.
    func begin() throws(StorageError) {
        logHeads.transactionDropped()  // whatever a transaction that ended without `commit` or `rollBack` left
        try connection.run("BEGIN IMMEDIATE")
        let version = try connection.queryFirst("PRAGMA data_version") { $0.int64(0) } ?? 0
        if version != dataVersion.value {
            if dataVersion.value != nil { logHeads.forgetAll() }
            dataVersion.value = version
        }
    }
    func commit() throws(StorageError) {
        do {
            try connection.run("COMMIT")
        } catch {
            logHeads.transactionDropped()
            throw error
        }
        logHeads.transactionCommitted()
    }
    func rollBack() throws(StorageError) {
        logHeads.transactionDropped()
        try connection.run("ROLLBACK")
    }
    func beginBatch() throws(StorageError) {
        logHeads.batchBegan()
        try connection.run("SAVEPOINT batch")
    }
    func releaseBatch() throws(StorageError) {
        try connection.run("RELEASE batch")
        logHeads.batchReleased()
    }
    func rollBackBatch() throws(StorageError) {
        logHeads.batchRolledBack()
        try connection.run("ROLLBACK TO batch")
        try connection.run("RELEASE batch")
    }
    func run(_ sql: String) throws(StorageError) { try connection.run(sql) }
    func apply(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) {
        try applier.apply(write, receipt: &receipt)
    }
    func pruneEvents(before: Int64, keepLatest: Int) throws(StorageError) -> Int {
        try applier.pruneEvents(before: before, keepLatest: keepLatest)
    }
    func takingTurn<R>(_ body: () -> R) -> R { checkpointer.takingTurn(body) }
    func close() { connection.close() }
}

/// The write connection's last `PRAGMA data_version` (nil before its first transaction). Writer thread only.
private final class DataVersion {
    var value: Int64?
}
