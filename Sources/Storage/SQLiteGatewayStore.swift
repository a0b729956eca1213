import Gateway
import Synchronization

/// A production store (SQLite or PostgreSQL): the port plus what the runtime needs to run and stop it.
public protocol DurableGatewayStore: GatewayStore {
    /// Transactions committed so far (the metrics' `switchboard_store_commits_total`).
    var commitCount: Int { get }
    /// Commits everything queued, stops the writer and closes the connections. Idempotent.
    func close()
    /// Push jobs waiting to be sent (state `pending`), for `/metrics`.
    func pendingPushJobs() throws -> Int
    /// Backend webhook jobs waiting to be sent (the outbox's rows without a device) and the oldest one's creation
    /// time (Unix ms; nil when there is none), for `/metrics`.
    func pendingBackendWebhooks() throws -> (count: Int, oldestCreatedAt: Int64?)
    /// The database's size in bytes, for `/metrics` (0 when it cannot be read).
    func databaseBytes() -> Int
}

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
public final class SQLiteGatewayStore: DurableGatewayStore, @unchecked Sendable {
    // @unchecked: the read connection is guarded by `readLock`; writes go through the thread-safe writer queue.
    let path: String
    let writer: GroupCommitWriter<SQLiteWriteBackend>
    let checkpointer: WALCheckpointer
    private let readLock = ConditionLock()
    private let idCounters = Mutex<[IdSequence: Int64]>([:])
    private var readConnection: SQLiteConnection?   // guarded by readLock; nil once closed

    /// Opens or creates the database, switches it to WAL, runs pending schema migrations and starts the writer and
    /// checkpoint threads. Throws a `StorageError` naming the path when the file cannot be opened, is not a SQLite database,
    /// or has a schema newer than this build.
    public init(options: SQLiteStoreOptions) throws(StorageError) {
        path = options.path
        let writeConnection = try SQLiteConnection(path: options.path, readOnly: false, busyTimeoutMs: options.busyTimeoutMs,
                                                   gatherWalWrites: options.gatherWalWrites)
        do throws(StorageError) {
            let mode = try writeConnection.queryFirst("PRAGMA journal_mode = WAL") { $0.string(0) }
            guard mode?.lowercased() == "wal" else {
                throw StorageError("\(options.path): cannot switch to WAL mode (journal_mode is \(mode ?? "unknown"))")
            }
            let synchronous = options.synchronous == .full ? "FULL" : "NORMAL"
            try writeConnection.execute("PRAGMA synchronous = \(synchronous)")
            try writeConnection.execute("PRAGMA cache_size = -\(max(1, options.writerCacheKiB))")
            try writeConnection.execute("PRAGMA wal_autocheckpoint = \(max(1, options.walCheckpointPages))")   // migrations
            try writeConnection.execute("PRAGMA journal_size_limit = \(max(1, options.walResetPages) * 4096)")
            try SchemaMigrations.migrate(writeConnection)
            // One process serves a SQLite file: claims on push jobs are this file's previous process's, which is gone
            // (a crash mid-send). Its jobs are due again at once rather than when their leases run out.
            try writeConnection.execute("UPDATE push_jobs SET claimed_by = NULL, lease_until = NULL WHERE lease_until IS NOT NULL")
            readConnection = try SQLiteConnection(path: options.path, readOnly: true, busyTimeoutMs: options.busyTimeoutMs)
            checkpointer = try WALCheckpointer(options: options)
            // From here on the write connection never checkpoints: its commits only tell the checkpointer the WAL's length.
            try writeConnection.execute("PRAGMA wal_autocheckpoint = 0")
        } catch {
            writeConnection.close()
            readConnection?.close()
            throw error
        }
        writeConnection.onWALCommit { [checkpointer] frames in checkpointer.walCommitted(frames: frames) }
        writer = GroupCommitWriter(connection: SQLiteWriteBackend(connection: writeConnection, checkpointer: checkpointer),
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
        writer.stop()   // first: a writer held for a WAL reset is let go by the checkpointer
        checkpointer.stop()
        readLock.withLock {
            readConnection?.close()
            readConnection = nil
        }
    }

    /// Transactions committed so far (write groups and prunes); tests use it to show grouping.
    public var commitCount: Int { writer.commitCount }

    /// The write connection's writes as SQLite made them and the `pwrite`s they became
    /// (`SQLiteConnection.gatheredWrites`); waits for every write queued before it.
    func walWrites() throws(StorageError) -> GatheredWrites {
        guard let counts = try writer.runAlone({ backend throws(StorageError) in backend.connection.gatheredWrites }) else {
            throw StorageError("\(path): store is closed")
        }
        return counts
    }

    // MARK: GatewayStore

    /// Queues the batches as one job: they are grouped into the writer's transactions (each in its own savepoint, so
    /// one failing batch does not fail the others), and `completion` runs once, on the writer thread after the
    /// commit, with one result per batch in order (a lost decision as its `StoreConflict`). After `close()` it runs
    /// at once, on the caller's thread, with errors.
    public func commit(batches: [[StoreWrite]], completion: @escaping @Sendable ([Result<StoreReceipt, Error>]) -> Void) {
        if !writer.submit(.batches(batches, { completion($0.map { $0.mapError(\.reported) }) })) {
            completion(Array(repeating: .failure(StorageError("\(path): store is closed")), count: batches.count))
        }
    }

    /// The whole snapshot, read in one transaction (see `GatewaySnapshot`). Blocks on disk.
    public func loadSnapshot() throws -> GatewaySnapshot {
        try read { reader throws(StorageError) in try reader.loadSnapshot() }
    }

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

    public func userEntry(id: String) throws -> UserEntry {
        try userEntries(ids: [id])[0]
    }

    /// The entries in one read transaction.
    public func userEntries(ids: [String]) throws -> [UserEntry] {
        try read { reader throws(StorageError) in try reader.userEntries(ids: ids) }
    }

    public func userId(hexCode: String) throws -> String? {
        try read { reader throws(StorageError) in try reader.userId(hexCode: hexCode) }
    }

    public func connectCode(code: String) throws -> ConnectCodeRecord? {
        try read { reader throws(StorageError) in try reader.connectCode(code: code) }
    }

    public func invite(code: String) throws -> InviteRecord? {
        try read { reader throws(StorageError) in try reader.invite(code: code) }
    }

    public func latestInvite(groupId: String, recipient: String) throws -> InviteRecord? {
        try read { reader throws(StorageError) in try reader.latestInvite(groupId: groupId, recipient: recipient) }
    }

    public func groupMemberIds(groupId: String) throws -> [String] {
        try read { reader throws(StorageError) in try reader.groupMemberIds(groupId: groupId) }
    }

    public func phoneOwners(phones: [String], hashes: [String]) throws -> PhoneOwners {
        try read { reader throws(StorageError) in try reader.phoneOwners(phones: phones, hashes: hashes) }
    }

    public func device(tokenDigest: String) throws -> DeviceRecord? {
        try read { reader throws(StorageError) in try reader.device(tokenDigest: tokenDigest) }
    }

    public func deviceOwners(deviceId: String) throws -> [String] {
        try read { reader throws(StorageError) in try reader.deviceOwners(deviceId: deviceId) }
    }

    /// Events of `userId` with offset > `after`, oldest first, at most `limit` (a negative limit means none).
    public func duePushJobs(now: Int64, limit: Int) throws -> [PushJobRecord] {
        try read { reader throws(StorageError) in try reader.duePushJobs(now: now, limit: limit) }
    }

    public func pushJob(id: Int64) throws -> PushJobRecord? {
        try read { reader throws(StorageError) in try reader.pushJob(id: id) }
    }

    /// A write: runs on the writer thread in its own transaction after every batch queued before it; blocks the caller.
    public func claimPushJobs(claimant: String, now: Int64, leaseMs: Int64, limit: Int) throws -> [PushJobRecord] {
        let claimed = try writer.runAlone { backend throws(StorageError) in
            try StoreReader(db: backend.connection).claimPushJobs(claimant: claimant, now: now, leaseMs: leaseMs, limit: limit)
        }
        guard let claimed else { throw StorageError("\(path): store is closed") }
        return claimed
    }

    public func events(userId: String, after: Int64, limit: Int) throws -> [StoredEvent] {
        try read { reader throws(StorageError) in try reader.events(userId: userId, after: after, limit: limit) }
    }

    /// The lowest offset still stored for `userId`, nil when its log is empty.
    public func oldestOffset(userId: String) throws -> Int64? {
        try read { reader throws(StorageError) in try reader.oldestOffset(userId: userId) }
    }

    /// One conversation (either direction), newest first, ids below `before`, at most `limit`.
    public func messages(between a: String, and b: String, before: Int64?, limit: Int) throws -> [MessageRecord] {
        try read { reader throws(StorageError) in try reader.messages(between: a, and: b, before: before, limit: limit) }
    }

    /// Per sender, the messages to `userId` above the user's read mark for that sender.
    public func unreadCounts(userId: String) throws -> [String: Int] {
        try read { reader throws(StorageError) in try reader.unreadCounts(userId: userId) }
    }

    /// One session by id (any state).
    public func session(id: String) throws -> SessionRecord? {
        try read { reader throws(StorageError) in try reader.session(id: id) }
    }

    /// One approval by id (any state).
    public func approval(id: String) throws -> ApprovalRecord? {
        try read { reader throws(StorageError) in try reader.approval(id: id) }
    }

    /// Pending approvals due by `dueBy`, earliest deadline first.
    public func pendingApprovals(dueBy: Int64, limit: Int) throws -> [ApprovalRecord] {
        try read { reader throws(StorageError) in try reader.pendingApprovals(dueBy: dueBy, limit: limit) }
    }

    /// The response and request digest stored by the last `putIdempotency` for this scope and key.
    public func idempotentResponse(scope: String, key: String) throws -> IdempotencyRecord? {
        try read { reader throws(StorageError) in try reader.idempotentResponse(scope: scope, key: key) }
    }

    /// Several keys under one hold of the read connection, in one read transaction (one WAL read lock, not one per key).
    public func idempotentResponses(_ keys: [IdempotencyKey]) throws -> [IdempotencyRecord?] {
        try read { reader throws(StorageError) in
            guard keys.count > 1 else { return try keys.map { key throws(StorageError) in try reader.idempotentResponse(scope: key.scope, key: key.key) } }
            try reader.db.run("BEGIN")
            defer { try? reader.db.run("COMMIT") }
            var records: [IdempotencyRecord?] = []
            records.reserveCapacity(keys.count)
            for key in keys { records.append(try reader.idempotentResponse(scope: key.scope, key: key.key)) }
            return records
        }
    }

    /// Drops events created before `before` except each user's newest `keepLatest`; returns how many went.
    /// Runs on the writer thread in its own transaction, after every batch queued before it; blocks the caller.
    /// Scans the whole log (a periodic maintenance job, not a hot path); appends wait while it runs.
    public func pruneEvents(before: Int64, keepLatest: Int) throws -> Int {
        let reply = BlockingReply<Result<Int, StorageError>>()
        let job = GroupCommitWriter<SQLiteWriteBackend>.Job.maintenance({ backend throws(StorageError) in
            try backend.applier.pruneEvents(before: before, keepLatest: keepLatest)
        }, reply)
        guard writer.submit(job) else { throw StorageError("\(path): store is closed") }
        return try reply.wait().get()
    }

    func read<R>(_ body: (StoreReader) throws(StorageError) -> R) throws(StorageError) -> R {
        readLock.lock()
        defer { readLock.unlock() }
        guard let readConnection else { throw StorageError("\(path): store is closed") }
        return try body(StoreReader(db: readConnection))
    }
}

/// The SQLite write connection as the group-commit writer drives it.
struct SQLiteWriteBackend: GroupCommitBackend {
    let connection: SQLiteConnection
    let checkpointer: WALCheckpointer
    /// Each log's highest offset as this connection stored it; kept in step with the transaction and its savepoints
    /// by the calls below.
    let logHeads = LogHeadCache()
    /// `PRAGMA data_version` when the last transaction began: it moves when another connection commits.
    private let dataVersion = DataVersion()
    var applier: StoreWriteApplier { StoreWriteApplier(db: connection, logHeads: logHeads) }
    var name: String { connection.path }
    var isAutocommit: Bool { connection.isAutocommit }

    init(connection: SQLiteConnection, checkpointer: WALCheckpointer) {
        self.connection = connection
        self.checkpointer = checkpointer
    }

    /// IMMEDIATE takes the write lock at once, so a second process waits here rather than failing at COMMIT. Once it
    /// holds the lock, a moved `data_version` (another connection committed since) makes the log heads start over.
    func begin() throws(StorageError) {
        logHeads.transactionDropped()   // whatever a transaction that ended without `commit` or `rollBack` left
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
    func apply(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) { try applier.apply(write, receipt: &receipt) }
    func takingTurn<R>(_ body: () -> R) -> R { checkpointer.takingTurn(body) }
    func close() { connection.close() }
}

/// The write connection's last `PRAGMA data_version` (nil before its first transaction). Writer thread only.
private final class DataVersion {
    var value: Int64?
}
