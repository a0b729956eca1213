import Gateway

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

/// The `GatewayStore` written once over an `SQLExecutor`: what `SQLiteGatewayStore` and `PostgresGatewayStore` share.
/// An engine's store brings its connections — a read connection under a lock (`read`) and a group-commit writer
/// owning the write connection — and what really differs (opening, id reservation, closing, sizes); the reads, the
/// commit, the push claim and the prune are here.
///
/// Reads block (on disk or the network) and must not run on an event-loop thread. `claimPushJobs` and `pruneEvents`
/// are writes: they run on the writer thread in their own transaction, after every batch queued before them, and
/// block the caller.
protocol RelationalGatewayStore: DurableGatewayStore {
    associatedtype Backend: RelationalWriteBackend
    /// The database in error messages.
    var storeName: String { get }
    var writer: GroupCommitWriter<Backend> { get }
    /// Runs `body` with a reader on the read connection, under the read lock; throws once the store is closed.
    func read<R>(_ body: (RelationalReader<Backend.DB>) throws(StorageError) -> R) throws(StorageError) -> R
}

/// A `GroupCommitBackend` whose connection the shared code can reach (the push claim, the prune).
protocol RelationalWriteBackend: GroupCommitBackend {
    associatedtype DB: SQLExecutor
    var db: DB { get }
    /// Drops events created before `before` except each user's newest `keepLatest` (see `GatewayStore.pruneEvents`).
    func pruneEvents(before: Int64, keepLatest: Int) throws(StorageError) -> Int
}

extension RelationalGatewayStore {
    /// Transactions committed so far (write groups and prunes); tests use it to show grouping.
    public var commitCount: Int { writer.commitCount }

    /// Queues the batches as one job: they are grouped into the writer's transactions (each in its own savepoint, so
    /// one failing batch does not fail the others), and `completion` runs once, on the writer thread after the
    /// commit, with one result per batch in order (a lost decision as its `StoreConflict`). After `close()` it runs
    /// at once, on the caller's thread, with errors.
    public func commit(batches: [[StoreWrite]], completion: @escaping @Sendable ([Result<StoreReceipt, Error>]) -> Void) {
        if !writer.submit(.batches(batches, { completion($0.map { $0.mapError(\.reported) }) })) {
            completion(Array(repeating: .failure(StorageError("\(storeName): store is closed")), count: batches.count))
        }
    }

    /// The whole snapshot, read in one transaction (see `GatewaySnapshot`).
    public func loadSnapshot() throws -> GatewaySnapshot {
        try read { reader throws(StorageError) in try reader.loadSnapshot() }
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

    public func duePushJobs(now: Int64, limit: Int) throws -> [PushJobRecord] {
        try read { reader throws(StorageError) in try reader.duePushJobs(now: now, limit: limit) }
    }

    public func pushJob(id: Int64) throws -> PushJobRecord? {
        try read { reader throws(StorageError) in try reader.pushJob(id: id) }
    }

    public func claimPushJobs(claimant: String, now: Int64, leaseMs: Int64, limit: Int) throws -> [PushJobRecord] {
        let claimed = try writer.runAlone { backend throws(StorageError) in
            try RelationalReader(db: backend.db).claimPushJobs(claimant: claimant, now: now, leaseMs: leaseMs, limit: limit)
        }
        guard let claimed else { throw StorageError("\(storeName): store is closed") }
        return claimed
    }

    /// Events of `userId` with offset > `after`, oldest first, at most `limit` (a negative limit means none).
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

    /// Drops events created before `before` except each user's newest `keepLatest`; returns how many went. Scans the
    /// whole log (a periodic maintenance job, not a hot path); appends wait while it runs.
    public func pruneEvents(before: Int64, keepLatest: Int) throws -> Int {
        let reply = BlockingReply<Result<Int, StorageError>>()
        let job = GroupCommitWriter<Backend>.Job.maintenance({ backend throws(StorageError) in
            try backend.pruneEvents(before: before, keepLatest: keepLatest)
        }, reply)
        guard writer.submit(job) else { throw StorageError("\(storeName): store is closed") }
        return try reply.wait().get()
    }

    /// Push jobs waiting to be sent (state `pending`: due now or backing off).
    public func pendingPushJobs() throws -> Int {
        try read { reader throws(StorageError) in try reader.pendingPushJobs() }
    }

    public func pendingBackendWebhooks() throws -> (count: Int, oldestCreatedAt: Int64?) {
        try read { reader throws(StorageError) in try reader.pendingBackendWebhooks() }
    }
}
