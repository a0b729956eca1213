import Glibc
import Gateway
import Postgres

/// Turns each `StoreWrite` into statements on the PostgreSQL write connection, with the same meaning as
/// `StoreWriteApplier` on SQLite. Writer thread only; the caller owns the transaction.
///
/// Decisions are single conditional statements, so the database decides races between nodes: the log head's
/// `INSERT … ON CONFLICT DO UPDATE … RETURNING` (event offsets, taken by the store), `INSERT … ON CONFLICT
/// DO NOTHING` (approval and message ids, idempotency keys) and `UPDATE … WHERE state = 'pending'`
/// (approvals, invites, sessions). Under READ COMMITTED a second writer's statement waits for the first one's row
/// lock and then re-checks its condition against the committed row, so exactly one wins; the loser's batch is rolled
/// back to its savepoint and gets a `StoreConflict` with the row read after the fact. A conflict is found from the
/// statement's row count (never from a caught error: an error would abort the whole transaction).
struct PostgresWriteApplier {
    let db: PostgresDatabase

    func apply(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) {
        do {
            try run(write.resolved(by: receipt), receipt: &receipt)
        } catch where error.conflict != nil {
            throw error
        } catch {
            throw error.prefixed("[\(StoreWriteApplier.describe(write))] ")
        }
    }

    private var reader: RelationalReader<PostgresDatabase> { RelationalReader(db: db) }

    private func run(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) {
        switch write {
        case .appendEvent(let e):
            // The store takes the log's next offset in the insert: the head row in `event_log_heads` is raised by one
            // (created at the log's highest stored offset + 1 the first time: logs written before heads were kept),
            // and the event goes in at the head's new value, in one statement. The head's row lock, held to COMMIT,
            // orders two nodes appending to one log: the second waits for the first's commit and takes the next
            // offset, so nothing collides and nothing is retried. `GREATEST` with the log's `MAX` (one probe of the
            // (user_id, offset) key) keeps the head right over a log another writer appended to without it.
            guard let offset = try db.query("""
                WITH head AS (
                    INSERT INTO event_log_heads (user_id, latest_offset)
                    VALUES ($1, COALESCE((SELECT MAX("offset") FROM events WHERE user_id = $1), 0) + 1)
                    ON CONFLICT (user_id) DO UPDATE SET latest_offset = GREATEST(event_log_heads.latest_offset,
                        COALESCE((SELECT MAX("offset") FROM events WHERE user_id = $1), 0)) + 1
                    RETURNING latest_offset)
                INSERT INTO events (user_id, "offset", type, payload, created_at)
                SELECT $1, latest_offset, $2, $3, $4 FROM head
                RETURNING "offset"
                """, [e.userId, e.type, e.payload, e.createdAt]).first?.int64(0) else {
                throw StorageError("appendEvent: no offset returned")
            }
            receipt.offsets.append(offset)
        case .insertUser(let u):
            // Insert if absent, the stored row returned either way: the no-op update locks and returns the row another
            // node inserted (after waiting for its commit), so the first creator's hex code wins everywhere.
            guard let stored = try db.query("""
                INSERT INTO users (id, hex_code, display_name, created_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (id) DO UPDATE SET hex_code = users.hex_code
                RETURNING id, hex_code, display_name, created_at
                """, [u.id, u.hexCode, u.displayName, u.createdAt]).first.map(StoreRows.user) else {
                throw StorageError("insertUser: no row returned")
            }
            receipt.users.append(stored)
        case .claimIdempotentOffset:
            preconditionFailure("resolved by apply")
        case .decideApproval(let a):
            let updated = try db.query("""
                UPDATE approvals SET state = $2, decided_by_device_id = $3, decided_by_client_type = $4, resolved_at = $5
                WHERE id = $1 AND state = 'pending'
                """, [a.id, a.state.rawValue, a.decidedByDeviceId, a.decidedByClientType, a.resolvedAt]).affected
            if updated == 0 { throw StorageError(conflict: .approvalDecided(current: try reader.approval(id: a.id))) }
        case .setSessionActiveClient(let sessionId, let expected, let new):
            let updated = try db.query("""
                UPDATE sessions SET active_client_type = $2, active_device_id = $3, active_last_activity_at = $4
                WHERE id = $1 AND state = 'active' AND active_client_type IS NOT DISTINCT FROM $5::text
                    AND active_device_id IS NOT DISTINCT FROM $6::text AND active_last_activity_at IS NOT DISTINCT FROM $7::bigint
                """, [sessionId, new.clientType, new.deviceId, new.lastActivityAt,
                      expected?.clientType, expected?.deviceId, expected?.lastActivityAt]).affected
            if updated == 0 { throw StorageError(conflict: .sessionChanged(current: try reader.session(id: sessionId))) }
        case .endSession(let sessionId, let endedAt):
            let updated = try db.query("UPDATE sessions SET state = 'ended', ended_at = $2 WHERE id = $1 AND state = 'active'",
                                       [sessionId, endedAt]).affected
            if updated == 0 { throw StorageError(conflict: .sessionChanged(current: try reader.session(id: sessionId))) }
        case .redeemInvite(let code, let usedBy, let usedAt):
            let updated = try db.query("UPDATE invites SET state = 'used', used_by = $2, used_at = $3 WHERE code = $1 AND state = 'pending'",
                                       [code, usedBy, usedAt]).affected
            if updated == 0 { throw StorageError(conflict: .inviteRedeemed(current: try reader.invite(code: code))) }
        case .claimIdempotency(let scope, let key, let response, let requestHash, let createdAt):
            let inserted = try db.query("""
                INSERT INTO idempotency (scope, "key", response, created_at, request_hash) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (scope, "key") DO NOTHING
                """, [scope, key, response, createdAt, requestHash]).affected
            if inserted == 0, let current = try reader.idempotentResponse(scope: scope, key: key) {
                throw StorageError(conflict: .idempotencyKeyClaimed(scope: scope, key: key, current: current))
            }
        case .claimPresencePush(let userId, let at, let intervalMs):
            let claimed = try db.query("""
                INSERT INTO presence_push_claims (user_id, sent_at) VALUES ($1, $2)
                ON CONFLICT (user_id) DO UPDATE SET sent_at = excluded.sent_at
                WHERE presence_push_claims.sent_at <= excluded.sent_at - $3::bigint
                """, [userId, at, intervalMs]).affected
            if claimed == 0 {
                let current = try db.int64("SELECT sent_at FROM presence_push_claims WHERE user_id = $1", [userId])
                throw StorageError(conflict: .presencePushClaimed(userId: userId, at: current ?? at))
            }
        case .upsertUser(let u):
            try db.query("""
                INSERT INTO users (id, hex_code, display_name, created_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (id) DO UPDATE SET hex_code = excluded.hex_code, display_name = excluded.display_name,
                    created_at = excluded.created_at
                """, [u.id, u.hexCode, u.displayName, u.createdAt])
        case .upsertDevice(let d):
            try db.query("""
                INSERT INTO devices (id, user_id, client_type, device_token, created_at, acked_offset) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (user_id, id) DO UPDATE SET client_type = excluded.client_type,
                    device_token = excluded.device_token, created_at = excluded.created_at, acked_offset = excluded.acked_offset
                """, [d.id, d.userId, d.clientType, d.deviceToken, d.createdAt, d.ackedOffset])
        case .upsertContact(let c):
            try db.query("""
                INSERT INTO contacts (user_id, contact_id, created_at, active) VALUES ($1, $2, $3, $4)
                ON CONFLICT (user_id, contact_id) DO UPDATE SET active = excluded.active
                """, [c.userId, c.contactId, c.createdAt, c.active])
        case .upsertSession(let s):
            try db.query("""
                INSERT INTO sessions (id, user_id, title, state, active_client_type, active_device_id,
                    active_last_activity_at, created_at, ended_at, seq)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, nextval('sessions_seq'))
                ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, title = excluded.title, state = excluded.state,
                    active_client_type = excluded.active_client_type, active_device_id = excluded.active_device_id,
                    active_last_activity_at = excluded.active_last_activity_at, created_at = excluded.created_at,
                    ended_at = excluded.ended_at, seq = excluded.seq
                """, [s.id, s.userId, s.title, s.state.rawValue, s.activeClient?.clientType, s.activeClient?.deviceId,
                      s.activeClient?.lastActivityAt, s.createdAt, s.endedAt])
        case .upsertApproval(let a):
            try insertApproval(a, orReplace: true)
        case .createApproval(let a):
            if try insertApproval(a, orReplace: false) == 0 {
                throw StorageError(conflict: .idTaken(.approval, latest: try reader.latestApprovalSequence()))
            }
        case .insertMessage(let m):
            let inserted = try db.query("""
                INSERT INTO messages (id, from_user, to_user, text, sent_at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (id) DO NOTHING
                """, [m.id, m.from, m.to, Array(m.text.utf8), m.sentAt]).affected
            if inserted == 0 {
                throw StorageError(conflict: .idTaken(.message, latest: try db.int64("SELECT COALESCE(MAX(id), 0) FROM messages") ?? m.id))
            }
        case .setReadMark(let userId, let peerId, let messageId):
            try db.query("""
                INSERT INTO read_marks (user_id, peer_id, message_id) VALUES ($1, $2, $3)
                ON CONFLICT (user_id, peer_id) DO UPDATE SET message_id = GREATEST(read_marks.message_id, excluded.message_id)
                """, [userId, peerId, messageId])
        case .setDeviceAck(let userId, let deviceId, let offset):
            try db.query("UPDATE devices SET acked_offset = GREATEST(acked_offset, $2) WHERE user_id = $3 AND id = $1",
                         [deviceId, offset, userId])
        case .putIdempotency(let scope, let key, let response, let requestHash, let createdAt):
            try db.query("""
                INSERT INTO idempotency (scope, "key", response, created_at, request_hash) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (scope, "key") DO UPDATE SET response = excluded.response, created_at = excluded.created_at,
                    request_hash = excluded.request_hash
                """, [scope, key, response, createdAt, requestHash])
        case .enqueuePush, .updatePushJob, .upsertPushToken, .deletePushToken, .setNotificationSettings:
            try applyPush(write)
        case .upsertFriendRequest, .upsertContactPause, .deleteContactPause, .upsertBlock, .deleteBlock, .upsertConnectCode, .claimConnectCode, .upsertGroup,
             .upsertGroupMember, .upsertInvite, .upsertUserPhone, .deleteUserPhone, .createFriendRequest,
             .resolveFriendRequest, .joinGroup:
            try applyRelationship(write)
        }
    }

    /// `upsertApproval` (`orReplace`), or `createApproval` (a plain insert that never overwrites); returns rows written.
    @discardableResult
    private func insertApproval(_ a: ApprovalRecord, orReplace: Bool) throws(StorageError) -> Int {
        let onConflict = orReplace ? """
            DO UPDATE SET user_id = excluded.user_id, session_id = excluded.session_id, tool_name = excluded.tool_name,
                summary = excluded.summary, details = excluded.details, state = excluded.state,
                decided_by_device_id = excluded.decided_by_device_id, decided_by_client_type = excluded.decided_by_client_type,
                created_at = excluded.created_at, expires_at = excluded.expires_at, resolved_at = excluded.resolved_at,
                seq = excluded.seq
            """ : "DO NOTHING"
        return try db.query("""
            INSERT INTO approvals (id, user_id, session_id, tool_name, summary, details, state, decided_by_device_id,
                decided_by_client_type, created_at, expires_at, resolved_at, seq)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, nextval('approvals_seq'))
            ON CONFLICT (id) \(onConflict)
            """, [a.id, a.userId, a.sessionId, a.toolName, a.summary, a.details, a.state.rawValue, a.decidedByDeviceId,
                  a.decidedByClientType, a.createdAt, a.expiresAt, a.resolvedAt]).affected
    }

    private func applyPush(_ write: StoreWrite) throws(StorageError) {
        switch write {
        case .enqueuePush(let job):
            // No id: the identity column assigns it (ids are the store's, so nodes never collide).
            try db.query("""
                INSERT INTO push_jobs (user_id, device_id, target, notice, fallback, state, attempts, next_attempt_at, last_error, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                """, [job.userId, job.deviceId, PushBlobs.encode(job.target), PushBlobs.encode(job.notice),
                      job.fallback.map(PushBlobs.encode), job.state, job.attempts, job.nextAttemptAt, job.lastError, job.createdAt])
        case .updatePushJob(let id, let state, let attempts, let nextAttemptAt, let lastError, let claimant):
            // Only the claim's holder records; the row lock makes a concurrent claim wait and then see the outcome.
            try db.query("""
                UPDATE push_jobs SET state = $2, attempts = $3, next_attempt_at = $4, last_error = $5,
                    claimed_by = NULL, lease_until = NULL WHERE id = $1 AND claimed_by IS NOT DISTINCT FROM $6::text
                """, [id, state, attempts, nextAttemptAt, lastError, claimant])
        case .upsertPushToken(let t):
            try db.query("""
                INSERT INTO push_tokens (device_id, kind, session_id, token, environment, updated_at, user_id)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (user_id, device_id, kind, session_id) DO UPDATE SET token = excluded.token,
                    environment = excluded.environment, updated_at = excluded.updated_at
                """, [t.deviceId, t.kind, t.sessionId, t.token, t.environment, t.updatedAt, t.userId])
        case .deletePushToken(let userId, let deviceId, let kind, let sessionId):
            try db.query("DELETE FROM push_tokens WHERE user_id = $4 AND device_id = $1 AND kind = $2 AND session_id = $3",
                         [deviceId, kind, sessionId, userId])
        case .setNotificationSettings(let userId, let settings):
            try db.query("""
                INSERT INTO notification_settings (user_id, settings) VALUES ($1, $2)
                ON CONFLICT (user_id) DO UPDATE SET settings = excluded.settings
                """, [userId, PushBlobs.encode(settings)])
        default:
            preconditionFailure("not a push write")
        }
    }

    private func applyRelationship(_ write: StoreWrite) throws(StorageError) {
        switch write {
        case .upsertFriendRequest(let r):
            try db.query("""
                INSERT INTO friend_requests (id, from_user, to_user, state, created_at, resolved_at) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (id) DO UPDATE SET from_user = excluded.from_user, to_user = excluded.to_user,
                    state = excluded.state, created_at = excluded.created_at, resolved_at = excluded.resolved_at
                """, [r.id, r.fromUserId, r.toUserId, r.state.rawValue, r.createdAt, r.resolvedAt])
        case .createFriendRequest(let r):
            // The pair's transaction-scoped advisory lock orders two nodes sending between the same two users (either
            // direction, which no unique index covers): the second waits for the first's commit, and its look-up — a
            // statement of its own, so a fresh snapshot under READ COMMITTED — then sees the first's request.
            let pair = [r.fromUserId, r.toUserId].sorted().joined(separator: "\u{1F}")
            try db.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", ["friend_request:" + pair])
            if let current = try db.query("""
                SELECT \(StoreRows.friendRequestColumns) FROM friend_requests
                WHERE state = 'pending' AND ((from_user = $1 AND to_user = $2) OR (from_user = $2 AND to_user = $1))
                """, [r.fromUserId, r.toUserId]).first.map({ row throws(StorageError) in try StoreRows.friendRequest(row, in: db.name) }) {
                throw StorageError(conflict: .friendRequestPending(current: current))
            }
            try applyRelationship(.upsertFriendRequest(r))
        case .resolveFriendRequest(let r):
            let updated = try db.query("UPDATE friend_requests SET state = $2, resolved_at = $3 WHERE id = $1 AND state = 'pending'",
                                       [r.id, r.state.rawValue, r.resolvedAt]).affected
            if updated == 0 {
                let current = try db.query("SELECT \(StoreRows.friendRequestColumns) FROM friend_requests WHERE id = $1", [r.id])
                    .first.map { row throws(StorageError) in try StoreRows.friendRequest(row, in: db.name) }
                throw StorageError(conflict: .friendRequestResolved(current: current))
            }
        case .joinGroup(let m):
            // The group's row lock (to COMMIT) orders two nodes' joins to one group: the second waits, then counts —
            // in a statement of its own, so it sees the first's membership.
            let group = try db.query("SELECT \(StoreRows.groupColumns) FROM user_groups WHERE id = $1 FOR UPDATE", [m.groupId])
                .first.map(StoreRows.group)
            let members = try db.query("""
                SELECT \(StoreRows.memberColumns) FROM group_members WHERE group_id = $1 ORDER BY created_at, user_id
                """, [m.groupId]).map(StoreRows.member)
            guard let group, !members.contains(where: { $0.userId == m.userId && $0.active }),
                  group.capacityRefusal(joining: m.role, members: members) == nil else {
                throw StorageError(conflict: .groupJoinRefused(group: group, members: members))
            }
            try applyRelationship(.upsertGroupMember(m))
        case .upsertContactPause(let p):
            try db.query("""
                INSERT INTO contact_pauses (user_id, contact_id, paused_at) VALUES ($1, $2, $3)
                ON CONFLICT (user_id, contact_id) DO UPDATE SET paused_at = excluded.paused_at
                """, [p.userId, p.contactId, p.pausedAt])
        case .deleteContactPause(let userId, let contactId):
            try db.query("DELETE FROM contact_pauses WHERE user_id = $1 AND contact_id = $2", [userId, contactId])
        case .upsertBlock(let b):
            try db.query("""
                INSERT INTO user_blocks (user_id, blocked_id, created_at) VALUES ($1, $2, $3)
                ON CONFLICT (user_id, blocked_id) DO NOTHING
                """, [b.userId, b.blockedId, b.createdAt])
        case .deleteBlock(let userId, let blockedId):
            try db.query("DELETE FROM user_blocks WHERE user_id = $1 AND blocked_id = $2", [userId, blockedId])
        case .upsertConnectCode(let c):
            // One statement decides the claim: the update applies only to the code's own user, so a code another
            // user holds (even one claimed a moment ago by another node) writes nothing.
            let written = try db.query("""
                INSERT INTO connect_codes (code, user_id, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (code) DO UPDATE SET created_at = excluded.created_at, expires_at = excluded.expires_at,
                    revoked_at = excluded.revoked_at
                WHERE connect_codes.user_id = excluded.user_id
                """, [c.code, c.userId, c.createdAt, c.expiresAt, c.revokedAt]).affected
            if written == 0, let current = try reader.connectCode(code: c.code) {
                throw StorageError(conflict: .connectCodeTaken(current: current))
            }
        case .claimConnectCode(let c, let retiredBy):
            // As above, and another user's code retired at or before `retiredBy` (out of quarantine) changes owner,
            // in the same single statement: two nodes reissuing it at once leave one owner, the other gets nothing.
            let written = try db.query("""
                INSERT INTO connect_codes (code, user_id, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (code) DO UPDATE SET user_id = excluded.user_id, created_at = excluded.created_at,
                    expires_at = excluded.expires_at, revoked_at = excluded.revoked_at
                WHERE connect_codes.user_id = excluded.user_id OR connect_codes.revoked_at <= $6 OR connect_codes.expires_at <= $6
                """, [c.code, c.userId, c.createdAt, c.expiresAt, c.revokedAt, retiredBy]).affected
            if written == 0, let current = try reader.connectCode(code: c.code) {
                throw StorageError(conflict: .connectCodeTaken(current: current))
            }
        case .upsertGroup(let g):
            try db.query("""
                INSERT INTO user_groups (id, owner_id, name, kind, max_members, invite_policy, role_limits, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (id) DO UPDATE SET owner_id = excluded.owner_id, name = excluded.name, kind = excluded.kind,
                    max_members = excluded.max_members, invite_policy = excluded.invite_policy,
                    role_limits = excluded.role_limits, created_at = excluded.created_at
                """, [g.id, g.ownerId, g.name, g.kind, g.maxMembers, g.invitePolicy,
                      RoleLimits.encode(g.roleLimits), g.createdAt])
        case .upsertGroupMember(let m):
            try db.query("""
                INSERT INTO group_members (group_id, user_id, role, active, created_at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (group_id, user_id) DO UPDATE SET role = excluded.role, active = excluded.active
                """, [m.groupId, m.userId, m.role, m.active, m.createdAt])
        case .upsertInvite(let i):
            // One statement decides the code: the update applies only to the same invite, so a code another node
            // gave another invite a moment ago writes nothing.
            let written = try db.query("""
                INSERT INTO invites (code, group_id, inviter_id, recipient, role, state, created_at, expires_at, used_by, used_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                ON CONFLICT (code) DO UPDATE SET recipient = excluded.recipient, role = excluded.role, state = excluded.state,
                    expires_at = excluded.expires_at, used_by = excluded.used_by, used_at = excluded.used_at
                WHERE invites.group_id = excluded.group_id AND invites.inviter_id = excluded.inviter_id
                    AND invites.created_at = excluded.created_at
                """, [i.code, i.groupId, i.inviterId, i.recipient, i.role, i.state.rawValue, i.createdAt, i.expiresAt, i.usedBy, i.usedAt]).affected
            if written == 0, let current = try reader.invite(code: i.code) {
                throw StorageError(conflict: .inviteCodeTaken(current: current))
            }
        case .upsertUserPhone(let p):
            try db.query("""
                INSERT INTO user_phones (user_id, phone, verified_at, phone_hash) VALUES ($1, $2, $3, $4)
                ON CONFLICT (user_id) DO UPDATE SET phone = excluded.phone, verified_at = excluded.verified_at,
                    phone_hash = excluded.phone_hash
                """, [p.userId, p.phone, p.verifiedAt, PhoneNumber.hash(e164: p.phone)])
        case .deleteUserPhone(let userId):
            try db.query("DELETE FROM user_phones WHERE user_id = $1", [userId])
        default:
            preconditionFailure("not a relationship write")
        }
    }

    /// Drops events created before `before` except each user's newest `keepLatest`; when a log may become empty
    /// its highest offset is first saved to `event_log_heads` (offsets never restart). Returns how many went.
    func pruneEvents(before: Int64, keepLatest: Int) throws(StorageError) -> Int {
        try db.execute("SET LOCAL statement_timeout = 0")   // a scan of the whole log (its own transaction)
        if keepLatest <= 0 {
            try db.query("""
                INSERT INTO event_log_heads (user_id, latest_offset)
                SELECT user_id, MAX("offset") FROM events GROUP BY user_id
                ON CONFLICT (user_id) DO UPDATE SET latest_offset = GREATEST(event_log_heads.latest_offset, excluded.latest_offset)
                """)
        }
        return try db.query("""
            DELETE FROM events WHERE created_at < $1 AND (user_id, "offset") IN (
                SELECT user_id, "offset" FROM (
                    SELECT user_id, "offset", created_at,
                        row_number() OVER (PARTITION BY user_id ORDER BY "offset" DESC) AS newest_rank
                    FROM events) AS ranked
                WHERE newest_rank > $2 AND created_at < $1)
            """, [before, Int64(keepLatest)]).affected
    }
}

/// The PostgreSQL write connection as the group-commit writer drives it.
struct PostgresWriteBackend: RelationalWriteBackend {
    let db: PostgresDatabase
    var applier: PostgresWriteApplier { PostgresWriteApplier(db: db) }
    var name: String { db.name }
    var isAutocommit: Bool { db.isAutocommit }
    func begin() throws(StorageError) { try db.execute("BEGIN") }
    func run(_ sql: String) throws(StorageError) { try db.execute(sql) }
    func apply(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) { try applier.apply(write, receipt: &receipt) }

    /// Takes the log heads of every user the batches append to, sorted by user id, before any batch runs: two
    /// writers' transactions then lock heads in the same order and never wait on each other in a cycle over them
    /// (a message appends to two logs; two nodes' group commits hold many). Heads missing yet are created first, as
    /// the append would (the log's highest offset), in the same order.
    func lockInOrder(_ batches: ArraySlice<[StoreWrite]>) throws(StorageError) {
        var users = Set<String>()
        for batch in batches { for case .appendEvent(let event) in batch { users.insert(event.userId) } }
        guard !users.isEmpty else { return }
        // A text[] literal: each id quoted, its quotes and backslashes escaped.
        let sorted = "{" + users.sorted().map { id in
            "\"" + id.flatMap { $0 == "\"" || $0 == "\\" ? ["\\", $0] : [$0] } + "\""
        }.joined(separator: ",") + "}"
        try db.query("""
            INSERT INTO event_log_heads (user_id, latest_offset)
            SELECT u, COALESCE((SELECT MAX("offset") FROM events WHERE user_id = u), 0)
            FROM unnest($1::text[]) AS u ORDER BY u
            ON CONFLICT (user_id) DO UPDATE SET latest_offset = event_log_heads.latest_offset
            """, [sorted])
    }

    func pruneEvents(before: Int64, keepLatest: Int) throws(StorageError) -> Int {
        try applier.pruneEvents(before: before, keepLatest: keepLatest)
    }

    func close() { db.close() }

    /// How long a commit whose reply was lost is asked after (its server may still be finishing it): 40 × 25 ms.
    static let commitStatusPolls = 40

    /// `COMMIT`, telling a commit whose reply was lost from one that did not happen: the link can break after the
    /// server committed and before its answer arrived, and reporting such a batch as failed invites a client to apply
    /// it twice. So the transaction's id is read first (one more round trip per transaction), and when `COMMIT`
    /// fails without an answer from the server (no SQLSTATE: the connection broke) the writer reconnects and asks
    /// `pg_xact_status` (again while it gets no answer, for up to a second): `committed` is a success, `aborted` or no
    /// answer within that time the error as before.
    func commit() throws(StorageError) {
        let xid = try db.query("SELECT pg_current_xact_id()::text").first?.optionalString(0)
        do {
            try db.execute("COMMIT")
        } catch where error.sqlstate == nil && xid != nil {
            for _ in 0..<Self.commitStatusPolls {
                switch try? db.query("SELECT pg_xact_status($1::xid8)", [xid]).first?.optionalString(0) {
                case "committed": return
                // The old session's COMMIT is still running on the server, or the question got no answer yet (the
                // writer is reconnecting): ask again within the budget.
                case "in progress", nil: usleep(25_000)
                default: throw error
                }
            }
            throw error
        }
    }
}
