import Gateway

/// What the engines decide differently inside a write transaction; everything else a write does is written once
/// (the feature appliers below) over the engine's `SQLExecutor`.
protocol EngineWrites {
    associatedtype DB: SQLExecutor
    var db: DB { get }
    /// Stores the event at its log's next offset (one above the highest stored, or above the head kept when pruning
    /// emptied the log) and returns that offset.
    func appendEvent(userId: String, type: String, payload: [UInt8], createdAt: Int64) throws(StorageError) -> Int64
    /// Inserts the user if absent and returns the stored row (the first creator's hex code wins).
    func insertUser(_ user: UserRecord) throws(StorageError) -> UserRecord
    /// Makes the pending-request check of a new friend request between `a` and `b` (either direction, which no
    /// unique index covers) and its insert one step with respect to other writers.
    func serializeFriendRequests(between a: String, and b: String) throws(StorageError)
}

/// Turns each `StoreWrite` into statements on the write connection, for either engine. Writer thread only; the
/// caller owns the transaction. The writes are split by feature — the log and messages, approvals and sessions,
/// users and devices, the push outbox, relationships — each written once over the dialect.
///
/// Decisions are single conditional statements or checks inside the writer's transaction, so the database decides
/// races between writers: an insert that may find its key taken (`{ifAbsent:…}`), `INSERT … ON CONFLICT DO
/// NOTHING` / `DO UPDATE … WHERE` (idempotency keys, presence pushes, connect codes, invites) and `UPDATE … WHERE
/// state = 'pending'` (approvals, invites, sessions). On PostgreSQL under READ COMMITTED a second writer's statement
/// waits for the first one's row lock and then re-checks its condition against the committed row, so exactly one
/// wins; on SQLite the single writer serialises. The loser's batch is rolled back to its savepoint and gets a
/// `StoreConflict` with the row read after the fact, found from the statement's row count (on PostgreSQL an error
/// would abort the whole transaction). Other failures throw and fail the whole batch, as in `InMemoryGatewayStore`.
struct RelationalWriteApplier<Engine: EngineWrites> {
    let engine: Engine

    func apply(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) {
        do {
            try run(write.resolved(by: receipt), receipt: &receipt)
        } catch  where error.conflict != nil {
            throw error
        } catch {
            throw error.labelled(Self.describe(write))
        }
    }

    private func run(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) {
        switch write {
        case .appendEvent, .insertMessage, .setReadMark, .claimIdempotency, .putIdempotency, .claimPresencePush:
            try LogWriteApplier(engine: engine).run(write, receipt: &receipt)
        case .decideApproval, .upsertApproval, .createApproval, .setSessionActiveClient, .endSession, .upsertSession:
            try SessionWriteApplier(db: engine.db).run(write)
        case .insertUser, .upsertUser, .upsertDevice, .upsertContact, .setDeviceAck:
            try UserWriteApplier(engine: engine).run(write, receipt: &receipt)
        case .enqueuePush, .updatePushJob, .upsertPushToken, .deletePushToken, .setNotificationSettings:
            try PushWriteApplier(db: engine.db).run(write)
        case .upsertFriendRequest, .upsertContactPause, .deleteContactPause, .upsertBlock, .deleteBlock,
            .upsertConnectCode,
            .claimConnectCode, .upsertGroup, .upsertGroupMember, .upsertInvite, .upsertUserPhone, .deleteUserPhone,
            .createFriendRequest, .resolveFriendRequest, .joinGroup, .redeemInvite:
            try RelationshipWriteApplier(engine: engine).run(write)
        case .deleteUser, .revokeDevice:
            try LifecycleWriteApplier(db: engine.db).run(write)
        case .claimIdempotentOffset:
            preconditionFailure("resolved by apply")
        }
    }

    /// Drops events created before `before` except each user's newest `keepLatest` (by offset); returns the count.
    /// When a log may become empty (`keepLatest <= 0`) its highest offset is first saved to `event_log_heads`
    /// (offsets never restart). Runs in its own transaction.
    func pruneEvents(before: Int64, keepLatest: Int) throws(StorageError) -> Int {
        try LogWriteApplier(engine: engine).pruneEvents(before: before, keepLatest: keepLatest)
    }

    /// A short label for error messages (no payloads: they may be large or private).
    static func describe(_ write: StoreWrite) -> String {
        switch write {
        case .appendEvent(let e): return "appendEvent user \(e.userId)"
        case .upsertUser(let u): return "upsertUser \(u.id)"
        case .insertUser(let u): return "insertUser \(u.id)"
        case .upsertDevice(let d): return "upsertDevice \(d.id)"
        case .upsertContact(let c): return "upsertContact \(c.userId)->\(c.contactId)"
        case .upsertSession(let s): return "upsertSession \(s.id)"
        case .upsertApproval(let a): return "upsertApproval \(a.id)"
        case .createApproval(let a): return "createApproval \(a.id)"
        case .insertMessage(let m): return "insertMessage \(m.id)"
        case .setReadMark(let userId, let peerId, _): return "setReadMark \(userId)->\(peerId)"
        case .setDeviceAck(let userId, let deviceId, _): return "setDeviceAck \(userId)/\(deviceId)"
        case .putIdempotency(let scope, let key, _, _, _): return "putIdempotency \(scope)/\(key)"
        case .claimIdempotency(let scope, let key, _, _, _), .claimIdempotentOffset(let scope, let key, _, _):
            return "claimIdempotency \(scope)/\(key)"
        case .claimPresencePush(let userId, _, _): return "claimPresencePush \(userId)"
        case .decideApproval(let a): return "decideApproval \(a.id)"
        case .setSessionActiveClient(let sessionId, _, _): return "setSessionActiveClient \(sessionId)"
        case .endSession(let sessionId, _): return "endSession \(sessionId)"
        case .redeemInvite(let code, _, _): return "redeemInvite \(code.prefix(2))…"
        case .enqueuePush(let job): return "enqueuePush \(job.id)"
        case .updatePushJob(let id, _, _, _, _, _): return "updatePushJob \(id)"
        case .upsertPushToken(let t): return "upsertPushToken \(t.userId)/\(t.deviceId)/\(t.kind)"
        case .deletePushToken(let userId, let deviceId, let kind, _):
            return "deletePushToken \(userId)/\(deviceId)/\(kind)"
        case .setNotificationSettings(let userId, _): return "setNotificationSettings \(userId)"
        case .upsertFriendRequest(let r): return "upsertFriendRequest \(r.id)"
        case .createFriendRequest(let r): return "createFriendRequest \(r.id)"
        case .resolveFriendRequest(let r): return "resolveFriendRequest \(r.id)"
        case .joinGroup(let m): return "joinGroup \(m.groupId)/\(m.userId)"
        case .upsertContactPause(let p): return "upsertContactPause \(p.userId)->\(p.contactId)"
        case .deleteContactPause(let userId, let contactId): return "deleteContactPause \(userId)->\(contactId)"
        case .upsertBlock(let b): return "upsertBlock \(b.userId)->\(b.blockedId)"
        case .deleteBlock(let userId, let blockedId): return "deleteBlock \(userId)->\(blockedId)"
        case .upsertConnectCode(let c): return "upsertConnectCode for \(c.userId)"
        case .claimConnectCode(let c, _): return "claimConnectCode for \(c.userId)"
        case .upsertGroup(let g): return "upsertGroup \(g.id)"
        case .upsertGroupMember(let m): return "upsertGroupMember \(m.groupId)/\(m.userId)"
        case .upsertInvite(let i): return "upsertInvite for group \(i.groupId)"
        case .upsertUserPhone(let p): return "upsertUserPhone \(p.userId)"
        case .deleteUserPhone(let userId): return "deleteUserPhone \(userId)"
        case .deleteUser(let userId, _): return "deleteUser \(userId)"
        case .revokeDevice(let userId, let deviceId, _): return "revokeDevice \(userId)/\(deviceId)"
        }
    }
}
