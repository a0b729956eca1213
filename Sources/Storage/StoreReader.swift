import Gateway

/// The read side: queries on a read-only connection. Not thread-safe — the store calls it under its read lock.
/// In WAL mode readers never block the writer and see every transaction committed before their statement began.
struct StoreReader {
    let db: SQLiteConnection

    /// Everything in the database the domain keeps in memory (every user), read inside one transaction so all parts
    /// agree (tests and tools: the hub reads users on demand).
    func loadSnapshot() throws(StorageError) -> GatewaySnapshot {
        try db.run("BEGIN")
        defer { try? db.run("COMMIT") }
        var snapshot = GatewaySnapshot()
        snapshot.openSessions = try db.query("SELECT \(Self.sessionColumns) FROM sessions WHERE state <> 'ended' ORDER BY seq",
                                             row: Self.session)
        snapshot.pendingApprovals = try db.query("SELECT \(Self.approvalColumns) FROM approvals WHERE state = 'pending' ORDER BY seq",
                                                 row: Self.approval)
        snapshot.users = try db.query("SELECT id, hex_code, display_name, created_at FROM users ORDER BY rowid", row: Self.user)
        snapshot.devices = try db.query("SELECT \(Self.deviceColumns) FROM devices ORDER BY rowid", row: Self.device)
        snapshot.contacts = try db.query("SELECT user_id, contact_id, created_at, active FROM contacts ORDER BY rowid", row: Self.contact)
        snapshot.latestOffsets = try latestOffsets()
        try loadPush(into: &snapshot)
        try loadRelationships(into: &snapshot)
        return snapshot
    }

    /// MAX(offset) per user, found by skipping from one user to the next along the primary key (one index seek
    /// per user instead of a scan of the whole log), merged with the heads saved when pruning emptied a log.
    private func latestOffsets() throws(StorageError) -> [String: Int64] {
        var offsets: [String: Int64] = [:]
        let pairs = try db.query("""
            WITH RECURSIVE log_users(id) AS (
                SELECT MIN(user_id) FROM events
                UNION ALL
                SELECT (SELECT MIN(user_id) FROM events WHERE user_id > log_users.id) FROM log_users
                WHERE log_users.id IS NOT NULL)
            SELECT id, (SELECT MAX("offset") FROM events WHERE user_id = log_users.id) FROM log_users
            WHERE id IS NOT NULL
            UNION ALL
            SELECT user_id, latest_offset FROM event_log_heads
            """) { ($0.string(0), $0.int64(1)) }
        for (user, offset) in pairs { offsets[user] = max(offsets[user] ?? 0, offset) }
        return offsets
    }

    /// The highest message id stored (0 when none): one probe of the primary key (where `reserveIds` begins).
    func latestMessageId() throws(StorageError) -> Int64 {
        try db.queryFirst("SELECT COALESCE(MAX(id), 0) FROM messages") { $0.int64(0) } ?? 0
    }

    /// The highest N of approval ids "apr_N" (decimal; ids that do not parse, or overflow, are ignored).
    func latestApprovalSequence() throws(StorageError) -> Int64 {
        let suffixes = try db.query("SELECT substr(id, 5) FROM approvals WHERE id GLOB 'apr_[0-9]*'") { $0.string(0) }
        return suffixes.compactMap { Int64($0) }.max() ?? 0
    }

    func events(userId: String, after: Int64, limit: Int) throws(StorageError) -> [StoredEvent] {
        try db.query("""
            SELECT user_id, "offset", type, payload, created_at FROM events
            WHERE user_id = ?1 AND "offset" > ?2 ORDER BY "offset" LIMIT ?3
            """) { $0.bind(1, userId); $0.bind(2, after); $0.bind(3, max(0, limit)) } row: {
            StoredEvent(userId: $0.string(0), offset: $0.int64(1), type: $0.string(2), payload: $0.bytes(3), createdAt: $0.int64(4))
        }
    }

    func oldestOffset(userId: String) throws(StorageError) -> Int64? {
        try db.queryFirst("SELECT MIN(\"offset\") FROM events WHERE user_id = ?1") { $0.bind(1, userId) } row: {
            $0.optionalInt64(0)
        } ?? nil
    }

    func messages(between a: String, and b: String, before: Int64?, limit: Int) throws(StorageError) -> [MessageRecord] {
        // The two directions are two ranges of the primary key, each read newest first and merged (one range
        // when a user writes to themself).
        try db.query("""
            SELECT id, from_user, to_user, text, sent_at FROM (
                SELECT * FROM (SELECT id, from_user, to_user, text, sent_at FROM messages
                    WHERE to_user = ?1 AND from_user = ?2 AND id < ?3 ORDER BY id DESC LIMIT ?4)
                UNION
                SELECT * FROM (SELECT id, from_user, to_user, text, sent_at FROM messages
                    WHERE to_user = ?2 AND from_user = ?1 AND id < ?3 ORDER BY id DESC LIMIT ?4))
            ORDER BY id DESC LIMIT ?4
            """) { $0.bind(1, a); $0.bind(2, b); $0.bind(3, before ?? Int64.max); $0.bind(4, max(0, limit)) } row: {
            MessageRecord(id: $0.int64(0), from: $0.string(1), to: $0.string(2), text: $0.string(3), sentAt: $0.int64(4))
        }
    }

    func unreadCounts(userId: String) throws(StorageError) -> [String: Int] {
        let rows = try db.query("""
            SELECT m.from_user, COUNT(*) FROM messages AS m
            LEFT JOIN read_marks AS r ON r.user_id = m.to_user AND r.peer_id = m.from_user
            WHERE m.to_user = ?1 AND m.id > COALESCE(r.message_id, 0)
            GROUP BY m.from_user
            """) { $0.bind(1, userId) } row: { ($0.string(0), Int($0.int64(1))) }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    /// The user's sessions that have not ended, by creation time (`sessions_open_by_user`, schema 12).
    func openSessions(userId: String) throws(StorageError) -> [SessionRecord] {
        try db.query("SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = ?1 AND state <> 'ended' ORDER BY created_at, id") {
            $0.bind(1, userId)
        } row: { row throws(StorageError) in try Self.session(row) }
    }

    func session(id: String) throws(StorageError) -> SessionRecord? {
        try db.queryFirst("SELECT \(Self.sessionColumns) FROM sessions WHERE id = ?1") { $0.bind(1, id) } row: { row throws(StorageError) in try Self.session(row) }
    }

    func approval(id: String) throws(StorageError) -> ApprovalRecord? {
        try db.queryFirst("SELECT \(Self.approvalColumns) FROM approvals WHERE id = ?1") { $0.bind(1, id) } row: { row throws(StorageError) in try Self.approval(row) }
    }

    func pendingApprovals(dueBy: Int64, limit: Int) throws(StorageError) -> [ApprovalRecord] {
        // Few approvals are pending at any time: the (state, seq) index finds them, the sort is over those few.
        try db.query("""
            SELECT \(Self.approvalColumns) FROM approvals WHERE state = 'pending' AND expires_at <= ?1
            ORDER BY expires_at, id LIMIT ?2
            """) { $0.bind(1, dueBy); $0.bind(2, Int64(max(0, limit))) } row: { row throws(StorageError) in try Self.approval(row) }
    }

    private static let sessionColumns = """
        id, user_id, title, state, active_client_type, active_device_id, active_last_activity_at, created_at, ended_at
        """

    private static func session(_ row: SQLiteStatement) throws(StorageError) -> SessionRecord {
        let client = row.isNull(4) ? nil
            : ActiveClient(clientType: row.string(4), deviceId: row.string(5), lastActivityAt: row.int64(6))
        return SessionRecord(id: row.string(0), userId: row.string(1), title: row.optionalString(2), state: try row.enumValue(3, as: SessionState.self),
                             activeClient: client, createdAt: row.int64(7), endedAt: row.optionalInt64(8))
    }

    private static let approvalColumns = """
        id, user_id, session_id, tool_name, summary, details, state, decided_by_device_id, decided_by_client_type,
        created_at, expires_at, resolved_at
        """

    private static func approval(_ row: SQLiteStatement) throws(StorageError) -> ApprovalRecord {
        try ApprovalRecord(id: row.string(0), userId: row.string(1), sessionId: row.string(2), toolName: row.string(3),
                       summary: row.string(4), details: row.optionalBytes(5), state: row.enumValue(6, as: ApprovalState.self),
                       decidedByDeviceId: row.optionalString(7), decidedByClientType: row.optionalString(8),
                       createdAt: row.int64(9), expiresAt: row.int64(10), resolvedAt: row.optionalInt64(11))
    }

    func idempotentResponse(scope: String, key: String) throws(StorageError) -> IdempotencyRecord? {
        try db.queryFirst("SELECT response, request_hash FROM idempotency WHERE scope = ?1 AND \"key\" = ?2") {
            $0.bind(1, scope); $0.bind(2, key)
        } row: { IdempotencyRecord(response: $0.bytes(0), requestHash: $0.string(1)) }
    }
}
