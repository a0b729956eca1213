import Gateway

/// Turns each `StoreWrite` into one cached SQL statement on the write connection. Writer thread only; the caller
/// owns the transaction. Semantics match `InMemoryGatewayStore` except where a duplicate key is a domain bug
/// (event offset, message id, hex code, device token): those throw, failing the whole batch.
struct StoreWriteApplier {
    let db: SQLiteConnection
    /// The log heads this connection knows (the writer's); nil probes the log for every append.
    var logHeads: LogHeadCache? = nil

    func apply(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) {
        do {
            try run(write.resolved(by: receipt), receipt: &receipt)
        } catch where error.conflict != nil {
            throw error
        } catch {
            throw StorageError(error.message + " [\(Self.describe(write))]", sqliteCode: error.sqliteCode)
        }
    }

    private func run(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) {
        switch write {
        case .appendEvent(let e):
            // The store takes the log's next offset (as on PostgreSQL): one above its highest stored offset, or
            // above the head kept when pruning emptied it. No hole, nothing below a committed offset. The writer
            // holds the database's write lock, so nothing slips in between; the head comes from `logHeads` when this
            // connection knows it, else from one probe of the (user_id, offset) key.
            let latest: Int64
            if let known = logHeads?.latest(e.userId) { latest = known } else { latest = try latestOffset(userId: e.userId) }
            let offset = latest + 1
            try db.run("INSERT INTO events (user_id, \"offset\", type, payload, created_at) VALUES (?1, ?2, ?3, ?4, ?5)") {
                $0.bind(1, e.userId); $0.bind(2, offset); $0.bind(3, e.type); $0.bind(4, e.payload); $0.bind(5, e.createdAt)
            }
            logHeads?.noteLatest(e.userId, offset)
            receipt.offsets.append(offset)
        case .insertUser(let u):
            // Insert if absent; either way the stored row is the answer (the first creator's hex code wins).
            try db.run("INSERT INTO users (id, hex_code, display_name, created_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (id) DO NOTHING") {
                $0.bind(1, u.id); $0.bind(2, u.hexCode); $0.bind(3, u.displayName); $0.bind(4, u.createdAt)
            }
            let stored = try db.queryFirst("SELECT id, hex_code, display_name, created_at FROM users WHERE id = ?1") {
                $0.bind(1, u.id)
            } row: { StoreRows.user($0) }
            receipt.users.append(stored ?? u)
        case .claimIdempotentOffset:
            preconditionFailure("resolved by apply")
        case .decideApproval(let a):
            try db.run("""
                UPDATE approvals SET state = ?2, decided_by_device_id = ?3, decided_by_client_type = ?4, resolved_at = ?5
                WHERE id = ?1 AND state = 'pending'
                """) {
                $0.bind(1, a.id); $0.bind(2, a.state.rawValue); $0.bind(3, a.decidedByDeviceId)
                $0.bind(4, a.decidedByClientType); $0.bind(5, a.resolvedAt)
            }
            if db.changes == 0 { throw StorageError(conflict: .approvalDecided(current: try RelationalReader(db: db).approval(id: a.id))) }
        case .setSessionActiveClient(let sessionId, let expected, let new):
            try db.run("""
                UPDATE sessions SET active_client_type = ?2, active_device_id = ?3, active_last_activity_at = ?4
                WHERE id = ?1 AND state = 'active' AND active_client_type IS ?5 AND active_device_id IS ?6
                    AND active_last_activity_at IS ?7
                """) {
                $0.bind(1, sessionId); $0.bind(2, new.clientType); $0.bind(3, new.deviceId); $0.bind(4, new.lastActivityAt)
                $0.bind(5, expected?.clientType); $0.bind(6, expected?.deviceId); $0.bind(7, expected?.lastActivityAt)
            }
            if db.changes == 0 { throw StorageError(conflict: .sessionChanged(current: try RelationalReader(db: db).session(id: sessionId))) }
        case .endSession(let sessionId, let endedAt):
            try db.run("UPDATE sessions SET state = 'ended', ended_at = ?2 WHERE id = ?1 AND state = 'active'") {
                $0.bind(1, sessionId); $0.bind(2, endedAt)
            }
            if db.changes == 0 { throw StorageError(conflict: .sessionChanged(current: try RelationalReader(db: db).session(id: sessionId))) }
        case .redeemInvite(let code, let usedBy, let usedAt):
            try db.run("UPDATE invites SET state = 'used', used_by = ?2, used_at = ?3 WHERE code = ?1 AND state = 'pending'") {
                $0.bind(1, code); $0.bind(2, usedBy); $0.bind(3, usedAt)
            }
            if db.changes == 0 { throw StorageError(conflict: .inviteRedeemed(current: try RelationalReader(db: db).invite(code: code))) }
        case .claimIdempotency(let scope, let key, let response, let requestHash, let createdAt):
            try db.run("""
                INSERT INTO idempotency (scope, "key", response, created_at, request_hash) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (scope, "key") DO NOTHING
                """) { $0.bind(1, scope); $0.bind(2, key); $0.bind(3, response); $0.bind(4, createdAt); $0.bind(5, requestHash) }
            if db.changes == 0, let current = try RelationalReader(db: db).idempotentResponse(scope: scope, key: key) {
                throw StorageError(conflict: .idempotencyKeyClaimed(scope: scope, key: key, current: current))
            }
        case .claimPresencePush(let userId, let at, let intervalMs):
            try db.run("""
                INSERT INTO presence_push_claims (user_id, sent_at) VALUES (?1, ?2)
                ON CONFLICT (user_id) DO UPDATE SET sent_at = excluded.sent_at
                WHERE presence_push_claims.sent_at <= excluded.sent_at - ?3
                """) { $0.bind(1, userId); $0.bind(2, at); $0.bind(3, intervalMs) }
            if db.changes == 0 {
                let current = try db.queryFirst("SELECT sent_at FROM presence_push_claims WHERE user_id = ?1") {
                    $0.bind(1, userId)
                } row: { $0.int64(0) }
                throw StorageError(conflict: .presencePushClaimed(userId: userId, at: current ?? at))
            }
        case .upsertUser(let u):
            try db.run("""
                INSERT INTO users (id, hex_code, display_name, created_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (id) DO UPDATE SET hex_code = excluded.hex_code, display_name = excluded.display_name,
                    created_at = excluded.created_at
                """) { $0.bind(1, u.id); $0.bind(2, u.hexCode); $0.bind(3, u.displayName); $0.bind(4, u.createdAt) }
        case .upsertDevice(let d):
            // The whole record is replaced, ack included (as the reference store does); acks only rise via setDeviceAck.
            try db.run("""
                INSERT INTO devices (id, user_id, client_type, device_token, created_at, acked_offset)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (user_id, id) DO UPDATE SET client_type = excluded.client_type,
                    device_token = excluded.device_token, created_at = excluded.created_at,
                    acked_offset = excluded.acked_offset
                """) {
                $0.bind(1, d.id); $0.bind(2, d.userId); $0.bind(3, d.clientType); $0.bind(4, d.deviceToken)
                $0.bind(5, d.createdAt); $0.bind(6, d.ackedOffset)
            }
        case .upsertContact(let c):
            // Reactivating a removed contact keeps the relation's original creation time.
            try db.run("""
                INSERT INTO contacts (user_id, contact_id, created_at, active) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (user_id, contact_id) DO UPDATE SET active = excluded.active
                """) { $0.bind(1, c.userId); $0.bind(2, c.contactId); $0.bind(3, c.createdAt); $0.bind(4, c.active) }
        case .upsertSession(let s):
            try db.run("""
                INSERT INTO sessions (id, user_id, title, state, active_client_type, active_device_id,
                    active_last_activity_at, created_at, ended_at, seq)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, (SELECT COALESCE(MAX(seq), 0) + 1 FROM sessions))
                ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, title = excluded.title,
                    state = excluded.state, active_client_type = excluded.active_client_type,
                    active_device_id = excluded.active_device_id,
                    active_last_activity_at = excluded.active_last_activity_at, created_at = excluded.created_at,
                    ended_at = excluded.ended_at, seq = excluded.seq
                """) {
                $0.bind(1, s.id); $0.bind(2, s.userId); $0.bind(3, s.title); $0.bind(4, s.state.rawValue)
                $0.bind(5, s.activeClient?.clientType); $0.bind(6, s.activeClient?.deviceId)
                $0.bind(7, s.activeClient?.lastActivityAt); $0.bind(8, s.createdAt); $0.bind(9, s.endedAt)
            }
        case .upsertApproval(let a):
            try insertApproval(a, orReplace: true)
        case .createApproval(let a):
            do {
                try insertApproval(a, orReplace: false)
            } catch where error.sqliteCode == Self.primaryKeyViolation || error.sqliteCode == Self.uniqueViolation {
                throw StorageError(conflict: .idTaken(.approval, latest: try RelationalReader(db: db).latestApprovalSequence()))
            }
        case .insertMessage(let m):
            do {
                try db.run("""
                    INSERT INTO messages (to_user, from_user, id, text, sent_at) VALUES (?3, ?2, ?1, ?4, ?5)
                    """) { $0.bind(1, m.id); $0.bind(2, m.from); $0.bind(3, m.to); $0.bind(4, m.text); $0.bind(5, m.sentAt) }
            } catch where error.sqliteCode == Self.primaryKeyViolation || error.sqliteCode == Self.uniqueViolation {
                let latest = try db.queryFirst("SELECT COALESCE(MAX(id), 0) FROM messages") { $0.int64(0) } ?? m.id
                throw StorageError(conflict: .idTaken(.message, latest: latest))
            }
        case .setReadMark(let userId, let peerId, let messageId):
            try db.run("""
                INSERT INTO read_marks (user_id, peer_id, message_id) VALUES (?1, ?2, ?3)
                ON CONFLICT (user_id, peer_id) DO UPDATE SET message_id = max(message_id, excluded.message_id)
                """) { $0.bind(1, userId); $0.bind(2, peerId); $0.bind(3, messageId) }
        case .setDeviceAck(let userId, let deviceId, let offset):
            // An unknown device is ignored, like the reference store.
            try db.run("UPDATE devices SET acked_offset = max(acked_offset, ?2) WHERE user_id = ?3 AND id = ?1") {
                $0.bind(1, deviceId); $0.bind(2, offset); $0.bind(3, userId)
            }
        case .putIdempotency(let scope, let key, let response, let requestHash, let createdAt):
            try db.run("""
                INSERT INTO idempotency (scope, "key", response, created_at, request_hash) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (scope, "key") DO UPDATE SET response = excluded.response, created_at = excluded.created_at,
                    request_hash = excluded.request_hash
                """) { $0.bind(1, scope); $0.bind(2, key); $0.bind(3, response); $0.bind(4, createdAt); $0.bind(5, requestHash) }
        case .enqueuePush, .updatePushJob, .upsertPushToken, .deletePushToken, .setNotificationSettings:
            try applyPush(write)
        case .upsertFriendRequest, .upsertContactPause, .deleteContactPause, .upsertBlock, .deleteBlock, .upsertConnectCode, .claimConnectCode, .upsertGroup,
             .upsertGroupMember, .upsertInvite, .upsertUserPhone, .deleteUserPhone, .createFriendRequest,
             .resolveFriendRequest, .joinGroup:
            try RelationshipWriteApplier(db: db).run(write)
        }
    }

    /// `upsertApproval` (`orReplace`), or `createApproval`: a plain insert whose key collision is the caller's to report.
    private func insertApproval(_ a: ApprovalRecord, orReplace: Bool) throws(StorageError) {
        let replace = orReplace ? """
            ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, session_id = excluded.session_id,
                tool_name = excluded.tool_name, summary = excluded.summary, details = excluded.details,
                state = excluded.state, decided_by_device_id = excluded.decided_by_device_id,
                decided_by_client_type = excluded.decided_by_client_type, created_at = excluded.created_at,
                expires_at = excluded.expires_at, resolved_at = excluded.resolved_at, seq = excluded.seq
            """ : ""
        try db.run("""
            INSERT INTO approvals (id, user_id, session_id, tool_name, summary, details, state,
                decided_by_device_id, decided_by_client_type, created_at, expires_at, resolved_at, seq)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,
                (SELECT COALESCE(MAX(seq), 0) + 1 FROM approvals))
            \(replace)
            """) {
            $0.bind(1, a.id); $0.bind(2, a.userId); $0.bind(3, a.sessionId); $0.bind(4, a.toolName)
            $0.bind(5, a.summary); $0.bind(6, a.details); $0.bind(7, a.state.rawValue); $0.bind(8, a.decidedByDeviceId)
            $0.bind(9, a.decidedByClientType); $0.bind(10, a.createdAt); $0.bind(11, a.expiresAt)
            $0.bind(12, a.resolvedAt)
        }
    }

    /// The highest offset of the user's log, stored or kept as the head of an emptied log; 0 for a log never written.
    /// `ORDER BY … LIMIT 1` makes it one probe of the (user_id, offset) key.
    func latestOffset(userId: String) throws(StorageError) -> Int64 {
        try db.queryFirst("""
            SELECT max(COALESCE((SELECT "offset" FROM events WHERE user_id = ?1 ORDER BY "offset" DESC LIMIT 1), 0),
                       COALESCE((SELECT latest_offset FROM event_log_heads WHERE user_id = ?1), 0))
            """) { $0.bind(1, userId) } row: { $0.int64(0) } ?? 0
    }

    /// SQLITE_CONSTRAINT_PRIMARYKEY.
    static let primaryKeyViolation: Int32 = 1555
    /// SQLITE_CONSTRAINT_UNIQUE.
    static let uniqueViolation: Int32 = 2067

    /// Drops events created before `before` except each user's newest `keepLatest` (by offset); returns the count.
    /// When a log may become empty (`keepLatest <= 0`) its highest offset is first saved to `event_log_heads`.
    func pruneEvents(before: Int64, keepLatest: Int) throws(StorageError) -> Int {
        if keepLatest <= 0 {
            try db.run("""
                INSERT INTO event_log_heads (user_id, latest_offset)
                SELECT user_id, MAX("offset") FROM events WHERE true GROUP BY user_id
                ON CONFLICT (user_id) DO UPDATE SET latest_offset = max(latest_offset, excluded.latest_offset)
                """)
        }
        try db.run("""
            DELETE FROM events WHERE created_at < ?1 AND (user_id, "offset") IN (
                SELECT user_id, "offset" FROM (
                    SELECT user_id, "offset", created_at,
                        row_number() OVER (PARTITION BY user_id ORDER BY "offset" DESC) AS newest_rank
                    FROM events)
                WHERE newest_rank > ?2 AND created_at < ?1)
            """) { $0.bind(1, before); $0.bind(2, Int64(keepLatest)) }
        return db.changes
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
        case .deletePushToken(let userId, let deviceId, let kind, _): return "deletePushToken \(userId)/\(deviceId)/\(kind)"
        case .setNotificationSettings(let userId, _): return "setNotificationSettings \(userId)"
        case .upsertFriendRequest, .upsertContactPause, .deleteContactPause, .upsertBlock, .deleteBlock, .upsertConnectCode, .claimConnectCode, .upsertGroup,
             .upsertGroupMember, .upsertInvite, .upsertUserPhone, .deleteUserPhone, .createFriendRequest,
             .resolveFriendRequest, .joinGroup:
            return RelationshipWriteApplier.describe(write)
        }
    }
}
