import Gateway

/// The `GatewayStore` for several nodes: one PostgreSQL database shared by every node, which makes each decision two
/// nodes could race on (see `StoreWrite` and `PostgresWriteApplier`).
///
/// Same shape as `SQLiteGatewayStore`: `write` only queues; one writer thread owning one connection group-commits
/// everything queued since its last commit (the shared `GroupCommitWriter`: each batch in its own savepoint) and runs
/// the completions after COMMIT returned, in submission order. Reads use a second connection under a lock; they
/// block on the network and must not run on an event loop. A connection that broke is reopened on its next use; the
/// writes of a group that was in flight when it broke fail with a retryable `StorageError` and none of them is kept.
///
/// All methods may be called from any thread. After `close()` writes fail with a `StorageError` at once and reads throw.
public final class PostgresGatewayStore: DurableGatewayStore, @unchecked Sendable {   // readDatabase is guarded by readLock
    private let name: String
    private let writer: GroupCommitWriter<PostgresWriteBackend>
    private let readLock = ConditionLock()
    private var readDatabase: PostgresDatabase?   // nil once closed

    /// Connects (twice: writer and reader), runs pending schema migrations (once across nodes starting together:
    /// `PostgresSchema.migrate`) and starts the writer thread. Throws a `StorageError` naming the database (never
    /// its password) when it cannot connect, a migration fails, or the schema is newer than this build.
    public init(options: PostgresStoreOptions) throws(StorageError) {
        name = options.redactedURL
        let writeDatabase = try PostgresDatabase(options: options)
        do throws(StorageError) {
            try PostgresSchema.migrate(writeDatabase)
            readDatabase = try PostgresDatabase(options: options)
        } catch {
            writeDatabase.close()
            throw error
        }
        writer = GroupCommitWriter(connection: PostgresWriteBackend(db: writeDatabase), maxBatchWrites: options.maxBatchWrites)
        do {
            try writer.start()
        } catch {
            writeDatabase.close()
            readDatabase?.close()
            throw error
        }
    }

    deinit { close() }

    /// Stops accepting writes, commits everything already queued, stops the writer thread and closes both
    /// connections. Idempotent.
    public func close() {
        writer.stop()
        readLock.withLock {
            readDatabase?.close()
            readDatabase = nil
        }
    }

    /// Transactions committed so far.
    public var commitCount: Int { writer.commitCount }
    /// Batches the writer applied again after they lost a deadlock or serialization check.
    var raceRetryCount: Int { writer.raceRetryCount }

    /// Push jobs waiting to be sent (state `pending`), for `/metrics`.
    public func pendingPushJobs() throws -> Int {
        try read { reader throws(StorageError) in
            Int(try reader.db.int64("SELECT COUNT(*) FROM push_jobs WHERE state = 'pending'") ?? 0)
        }
    }

    public func pendingBackendWebhooks() throws -> (count: Int, oldestCreatedAt: Int64?) {
        try read { reader throws(StorageError) in
            let row = try reader.db.query(StoreReader.pendingBackendWebhooksSQL, []).first
            return (Int(row?.int64(0) ?? 0), row?.optionalInt64(1))
        }
    }

    /// `pg_database_size` of the shared database (every node reports the same figure), 0 when it cannot be read.
    public func databaseBytes() -> Int {
        (try? read { reader throws(StorageError) in Int(try reader.db.int64("SELECT pg_database_size(current_database())") ?? 0) }) ?? 0
    }

    /// The schema version this build brings a database to.
    public static var latestSchemaVersion: Int { PostgresSchema.migrations.map(\.version).max() ?? 0 }

    // MARK: GatewayStore

    /// Queues the batches as one job (each all-or-nothing in its own savepoint); `completion` runs once on the writer
    /// thread after the commit, one result per batch (its receipt, or a lost decision as its `StoreConflict`).
    public func commit(batches: [[StoreWrite]], completion: @escaping @Sendable ([Result<StoreReceipt, Error>]) -> Void) {
        if !writer.submit(.batches(batches, { completion($0.map { $0.mapError(\.reported) }) })) {
            completion(Array(repeating: .failure(StorageError("\(name): store is closed")), count: batches.count))
        }
    }

    public func loadSnapshot() throws -> GatewaySnapshot {
        try read { reader throws(StorageError) in try reader.loadSnapshot() }
    }

    /// From the database's sequences (`message_ids`, `approval_ids`, schema version 9): `nextval` is never rolled back
    /// and never handed out twice, so nodes sharing the database never draw the same id.
    public func reserveIds(_ sequence: IdSequence, count: Int, above: Int64) throws -> [Int64] {
        try read { reader throws(StorageError) in try reader.reserveIds(sequence, count: count, above: above) }
    }

    public func userEntry(id: String) throws -> UserEntry {
        try userEntries(ids: [id])[0]
    }

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

    public func events(userId: String, after: Int64, limit: Int) throws -> [StoredEvent] {
        try read { reader throws(StorageError) in try reader.events(userId: userId, after: after, limit: limit) }
    }

    public func oldestOffset(userId: String) throws -> Int64? {
        try read { reader throws(StorageError) in try reader.oldestOffset(userId: userId) }
    }

    public func messages(between a: String, and b: String, before: Int64?, limit: Int) throws -> [MessageRecord] {
        try read { reader throws(StorageError) in try reader.messages(between: a, and: b, before: before, limit: limit) }
    }

    public func unreadCounts(userId: String) throws -> [String: Int] {
        try read { reader throws(StorageError) in try reader.unreadCounts(userId: userId) }
    }

    public func session(id: String) throws -> SessionRecord? {
        try read { reader throws(StorageError) in try reader.session(id: id) }
    }

    public func approval(id: String) throws -> ApprovalRecord? {
        try read { reader throws(StorageError) in try reader.approval(id: id) }
    }

    public func pendingApprovals(dueBy: Int64, limit: Int) throws -> [ApprovalRecord] {
        try read { reader throws(StorageError) in try reader.pendingApprovals(dueBy: dueBy, limit: limit) }
    }

    public func idempotentResponse(scope: String, key: String) throws -> IdempotencyRecord? {
        try read { reader throws(StorageError) in try reader.idempotentResponse(scope: scope, key: key) }
    }

    public func duePushJobs(now: Int64, limit: Int) throws -> [PushJobRecord] {
        try read { reader throws(StorageError) in try reader.duePushJobs(now: now, limit: limit) }
    }

    public func pushJob(id: Int64) throws -> PushJobRecord? {
        try read { reader throws(StorageError) in try reader.pushJob(id: id) }
    }

    /// A write: runs on the writer thread in its own transaction after every batch queued before it; blocks the caller.
    public func claimPushJobs(claimant: String, now: Int64, leaseMs: Int64, limit: Int) throws -> [PushJobRecord] {
        let claimed = try writer.runAlone { backend throws(StorageError) in
            try PostgresReader(db: backend.db).claimPushJobs(claimant: claimant, now: now, leaseMs: leaseMs, limit: limit)
        }
        guard let claimed else { throw StorageError("\(name): store is closed") }
        return claimed
    }

    /// Runs on the writer thread in its own transaction after every batch queued before it; blocks the caller.
    public func pruneEvents(before: Int64, keepLatest: Int) throws -> Int {
        let reply = BlockingReply<Result<Int, StorageError>>()
        let job = GroupCommitWriter<PostgresWriteBackend>.Job.maintenance({ backend throws(StorageError) in
            try backend.applier.pruneEvents(before: before, keepLatest: keepLatest)
        }, reply)
        guard writer.submit(job) else { throw StorageError("\(name): store is closed") }
        return try reply.wait().get()
    }

    private func read<R>(_ body: (PostgresReader) throws(StorageError) -> R) throws(StorageError) -> R {
        readLock.lock()
        defer { readLock.unlock() }
        guard let readDatabase else { throw StorageError("\(name): store is closed") }
        return try body(PostgresReader(db: readDatabase))
    }
}

extension PostgresGatewayStore {
    /// The schema version recorded in the database, read without changing anything: nil when it has no schema yet.
    /// Throws when the database cannot be reached.
    public static func schemaVersion(options: PostgresStoreOptions) throws(StorageError) -> Int? {
        let db = try PostgresDatabase(options: options)
        defer { db.close() }
        guard try db.query("SELECT to_regclass('schema_version') IS NOT NULL").first?.bool(0) == true else { return nil }
        return try db.int64("SELECT version FROM schema_version LIMIT 1").map { Int($0) }
    }
}
