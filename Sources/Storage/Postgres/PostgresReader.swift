import Gateway
import Postgres

/// The read side on PostgreSQL, with the same answers as SQLite's `StoreReader`. Used on the store's read connection
/// under its lock, and by the writer (inside its transaction) to report a lost decision's current row.
struct PostgresReader {
    let db: PostgresDatabase

    /// Everything in the database the domain keeps in memory (every user), read in one REPEATABLE READ transaction
    /// so all parts agree (tests and tools: the hub reads users on demand).
    func loadSnapshot() throws(StorageError) -> GatewaySnapshot {
        try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { try? db.execute("COMMIT") }
        // Reading a whole large database may take longer than one command's statement timeout.
        try db.execute("SET LOCAL statement_timeout = 0")
        var s = GatewaySnapshot()
        s.openSessions = try db.query("SELECT \(Self.sessionColumns) FROM sessions WHERE state <> 'ended' ORDER BY seq").map(session)
        s.pendingApprovals = try db.query("SELECT \(Self.approvalColumns) FROM approvals WHERE state = 'pending' ORDER BY seq")
            .map(approval)
        s.users = try db.query("SELECT id, hex_code, display_name, created_at FROM users ORDER BY row_order").map(Self.user)
        s.devices = try db.query("SELECT \(StoreReader.deviceColumns) FROM devices ORDER BY row_order").map(Self.device)
        s.contacts = try db.query("SELECT user_id, contact_id, created_at, active FROM contacts ORDER BY row_order").map(Self.contact)
        // MAX(offset) per user, merged with the heads saved when pruning emptied a log.
        let heads = try db.query("""
            SELECT user_id, MAX("offset") FROM events GROUP BY user_id
            UNION ALL SELECT user_id, latest_offset FROM event_log_heads
            """).map { ($0.string(0), $0.int64(1)) }
        for (user, offset) in heads { s.latestOffsets[user] = max(s.latestOffsets[user] ?? 0, offset) }
        s.pushTokens = try db.query("SELECT \(Self.pushTokenColumns) FROM push_tokens ORDER BY row_order").map(Self.pushToken)
        for row in try db.query("SELECT user_id, settings FROM notification_settings").map({ ($0.string(0), $0.bytes(1)) }) {
            s.notificationSettings[row.0] = PushBlobs.settings(row.1)
        }
        try loadRelationships(into: &s)
        return s
    }

    private func loadRelationships(into s: inout GatewaySnapshot) throws(StorageError) {
        s.friendRequests = try db.query("SELECT \(StoreReader.friendRequestColumns) FROM friend_requests ORDER BY row_order").map(friendRequest)
        s.contactPauses = try db.query("SELECT user_id, contact_id, paused_at FROM contact_pauses ORDER BY row_order").map(Self.pause)
        s.blocks = try db.query("SELECT user_id, blocked_id, created_at FROM user_blocks ORDER BY row_order").map(Self.block)
        s.connectCodes = try db.query("SELECT \(Self.connectCodeColumns) FROM connect_codes ORDER BY row_order").map(Self.connectCode)
        s.groups = try db.query("SELECT \(StoreReader.groupColumns) FROM user_groups ORDER BY row_order").map(Self.group)
        s.groupMembers = try db.query("SELECT \(StoreReader.memberColumns) FROM group_members ORDER BY row_order").map(Self.member)
        s.invites = try db.query("SELECT \(StoreReader.inviteColumns) FROM invites ORDER BY row_order").map(invite)
        s.userPhones = try db.query("SELECT user_id, phone, verified_at FROM user_phones ORDER BY row_order").map(Self.phone)
    }

    /// `count` values of the sequence behind `sequence`, ascending; first moved past `above` (an id stored by a
    /// writer that did not draw from the sequence: a rare fallback, so a plain `setval` is enough).
    func reserveIds(_ sequence: IdSequence, count: Int, above: Int64) throws(StorageError) -> [Int64] {
        let name = sequence == .message ? "message_ids" : "approval_ids"
        if above > 0 {
            try db.query("SELECT setval('\(name)', $1) FROM \(name) WHERE last_value < $1", [above])
        }
        return try db.query("SELECT nextval('\(name)') FROM generate_series(1, $1)", [Int64(count)]).map { $0.int64(0) }.sorted()
    }

    /// The highest N of approval ids "apr_N" (ids that do not parse, or overflow, are ignored).
    func latestApprovalSequence() throws(StorageError) -> Int64 {
        try db.query("SELECT substr(id, 5) FROM approvals WHERE id ~ '^apr_[0-9]'").map { Int64($0.string(0)) }.compactMap { $0 }.max() ?? 0
    }

    func events(userId: String, after: Int64, limit: Int) throws(StorageError) -> [StoredEvent] {
        try db.query("""
            SELECT user_id, "offset", type, payload, created_at FROM events
            WHERE user_id = $1 AND "offset" > $2 ORDER BY "offset" LIMIT $3
            """, [userId, after, max(0, limit)]).map {
            StoredEvent(userId: $0.string(0), offset: $0.int64(1), type: $0.string(2), payload: $0.bytes(3), createdAt: $0.int64(4))
        }
    }

    func oldestOffset(userId: String) throws(StorageError) -> Int64? {
        try db.int64("SELECT MIN(\"offset\") FROM events WHERE user_id = $1", [userId])
    }

    func messages(between a: String, and b: String, before: Int64?, limit: Int) throws(StorageError) -> [MessageRecord] {
        // The two directions are two ranges of the primary key, each read newest first and merged.
        try db.query("""
            SELECT id, from_user, to_user, text, sent_at FROM (
                (SELECT id, from_user, to_user, text, sent_at FROM messages
                    WHERE to_user = $1 AND from_user = $2 AND id < $3 ORDER BY id DESC LIMIT $4)
                UNION
                (SELECT id, from_user, to_user, text, sent_at FROM messages
                    WHERE to_user = $2 AND from_user = $1 AND id < $3 ORDER BY id DESC LIMIT $4)) AS conversation
            ORDER BY id DESC LIMIT $4
            """, [a, b, before ?? Int64.max, max(0, limit)]).map {
            MessageRecord(id: $0.int64(0), from: $0.string(1), to: $0.string(2), text: String(decoding: $0.bytes(3), as: UTF8.self),
                          sentAt: $0.int64(4))
        }
    }

    func unreadCounts(userId: String) throws(StorageError) -> [String: Int] {
        let rows = try db.query("""
            SELECT m.from_user, COUNT(*) FROM messages AS m
            LEFT JOIN read_marks AS r ON r.user_id = m.to_user AND r.peer_id = m.from_user
            WHERE m.to_user = $1 AND m.id > COALESCE(r.message_id, 0)
            GROUP BY m.from_user
            """, [userId]).map { ($0.string(0), Int($0.int64(1))) }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    /// The user's sessions that have not ended, by creation time (`sessions_open_by_user`, schema 12).
    func openSessions(userId: String) throws(StorageError) -> [SessionRecord] {
        try db.query("SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = $1 AND state <> 'ended' ORDER BY created_at, id",
                     [userId]).map(session)
    }

    func session(id: String) throws(StorageError) -> SessionRecord? {
        try db.query("SELECT \(Self.sessionColumns) FROM sessions WHERE id = $1", [id]).first.map(session)
    }

    func approval(id: String) throws(StorageError) -> ApprovalRecord? {
        try db.query("SELECT \(Self.approvalColumns) FROM approvals WHERE id = $1", [id]).first.map(approval)
    }

    func pendingApprovals(dueBy: Int64, limit: Int) throws(StorageError) -> [ApprovalRecord] {
        try db.query("""
            SELECT \(Self.approvalColumns) FROM approvals WHERE state = 'pending' AND expires_at <= $1
            ORDER BY expires_at, id LIMIT $2
            """, [dueBy, max(0, limit)]).map(approval)
    }

    func idempotentResponse(scope: String, key: String) throws(StorageError) -> IdempotencyRecord? {
        try db.query("SELECT response, request_hash FROM idempotency WHERE scope = $1 AND \"key\" = $2", [scope, key]).first.map {
            IdempotencyRecord(response: $0.bytes(0), requestHash: $0.string(1))
        }
    }

    func invite(code: String) throws(StorageError) -> InviteRecord? {
        try db.query("SELECT \(StoreReader.inviteColumns) FROM invites WHERE code = $1", [code]).first.map(invite)
    }

    func connectCode(code: String) throws(StorageError) -> ConnectCodeRecord? {
        try db.query("SELECT \(Self.connectCodeColumns) FROM connect_codes WHERE code = $1", [code]).first.map(Self.connectCode)
    }

    func duePushJobs(now: Int64, limit: Int) throws(StorageError) -> [PushJobRecord] {
        try db.query("""
            SELECT \(StoreReader.pushColumns) FROM push_jobs WHERE state = 'pending' AND next_attempt_at <= $1
            ORDER BY next_attempt_at, id LIMIT $2
            """, [now, limit]).map(Self.pushJob).compactMap { $0 }
    }

    /// `GatewayStore.claimPushJobs` as one statement: rows another node is claiming at the same moment are skipped
    /// (`SKIP LOCKED`), not waited for, so concurrent claims get disjoint jobs without blocking each other. A user's
    /// later backend job stays behind an earlier one another node is claiming: that one is `pending` whoever holds it.
    func claimPushJobs(claimant: String, now: Int64, leaseMs: Int64, limit: Int) throws(StorageError) -> [PushJobRecord] {
        try db.query("""
            UPDATE push_jobs SET claimed_by = $1, lease_until = $2 + $3
            WHERE id IN (SELECT id FROM push_jobs j WHERE state = 'pending' AND next_attempt_at <= $2
                AND (lease_until IS NULL OR lease_until < $2) AND \(StoreReader.notBehindEarlierBackendJob)
                ORDER BY next_attempt_at, id LIMIT $4 FOR UPDATE SKIP LOCKED)
            RETURNING \(StoreReader.pushColumns)
            """, [claimant, now, leaseMs, limit]).map(Self.pushJob).compactMap { $0 }
            .sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
    }

    func pushJob(id: Int64) throws(StorageError) -> PushJobRecord? {
        try db.query("SELECT \(StoreReader.pushColumns) FROM push_jobs WHERE id = $1", [id]).first.flatMap(Self.pushJob)
    }

    // MARK: Rows

    private static let sessionColumns = """
        id, user_id, title, state, active_client_type, active_device_id, active_last_activity_at, created_at, ended_at
        """

    private func session(_ row: PostgresRow) throws(StorageError) -> SessionRecord {
        let client = row.isNull(4) ? nil
            : ActiveClient(clientType: row.string(4), deviceId: row.string(5), lastActivityAt: row.int64(6))
        return SessionRecord(id: row.string(0), userId: row.string(1), title: row.optionalString(2),
                             state: try enumValue(row, 3, SessionState.self), activeClient: client, createdAt: row.int64(7),
                             endedAt: row.optionalInt64(8))
    }

    private static let approvalColumns = """
        id, user_id, session_id, tool_name, summary, details, state, decided_by_device_id, decided_by_client_type,
        created_at, expires_at, resolved_at
        """

    private func approval(_ row: PostgresRow) throws(StorageError) -> ApprovalRecord {
        ApprovalRecord(id: row.string(0), userId: row.string(1), sessionId: row.string(2), toolName: row.string(3),
                       summary: row.string(4), details: row.optionalBytes(5), state: try enumValue(row, 6, ApprovalState.self),
                       decidedByDeviceId: row.optionalString(7), decidedByClientType: row.optionalString(8),
                       createdAt: row.int64(9), expiresAt: row.int64(10), resolvedAt: row.optionalInt64(11))
    }

    func invite(_ row: PostgresRow) throws(StorageError) -> InviteRecord {
        InviteRecord(code: row.string(0), groupId: row.string(1), inviterId: row.string(2), recipient: row.optionalString(3),
                     role: row.string(4), state: try enumValue(row, 5, InviteState.self), createdAt: row.int64(6),
                     expiresAt: row.int64(7), usedBy: row.optionalString(8), usedAt: row.optionalInt64(9))
    }

    static let connectCodeColumns = "code, user_id, created_at, expires_at, revoked_at"

    static func connectCode(_ row: PostgresRow) -> ConnectCodeRecord {
        ConnectCodeRecord(code: row.string(0), userId: row.string(1), createdAt: row.int64(2), expiresAt: row.optionalInt64(3),
                          revokedAt: row.optionalInt64(4))
    }

    private static func pushJob(_ row: PostgresRow) -> PushJobRecord? {
        PushBlobs.job(id: row.int64(0), userId: row.string(1), deviceId: row.string(2), target: row.bytes(3), notice: row.bytes(4),
                      fallback: row.optionalBytes(5), state: row.string(6), attempts: Int(row.int64(7)), nextAttemptAt: row.int64(8),
                      lastError: row.optionalString(9), createdAt: row.int64(10))
    }

    /// A column holding an enum's raw value; any other text is an error naming the value.
    func enumValue<Value: RawRepresentable>(_ row: PostgresRow, _ column: Int, _ type: Value.Type) throws(StorageError) -> Value
        where Value.RawValue == String {
        let text = row.string(column)
        guard let value = Value(rawValue: text) else { throw StorageError("\(db.name): unknown \(Value.self) \"\(text)\" in the database") }
        return value
    }
}
