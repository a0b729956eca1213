import Gateway

/// The read side, written once for both engines: queries on a store's read connection (under its read lock), and on
/// the writer's connection inside its transaction to report a lost decision's current row. Not thread-safe.
///
/// On SQLite in WAL mode readers never block the writer and see every transaction committed before their statement
/// began; on PostgreSQL each statement sees what was committed when it began (READ COMMITTED), and the multi-part
/// reads run in one REPEATABLE READ transaction (`SQLExecutor.beginRead`).
struct RelationalReader<DB: SQLExecutor> {
    let db: DB

    /// Everything in the database the domain keeps in memory (every user), read inside one transaction so all parts
    /// agree (tests and tools: the hub reads users on demand).
    func loadSnapshot() throws(StorageError) -> GatewaySnapshot {
        try db.reading(unbounded: true) { () throws(StorageError) -> GatewaySnapshot in
            var s = GatewaySnapshot()
            s.openSessions = try db.query("SELECT \(StoreRows.sessionColumns) FROM sessions WHERE state <> 'ended' ORDER BY seq") {
                row throws(StorageError) in try StoreRows.session(row, in: db.name)
            }
            s.pendingApprovals = try db.query("""
                SELECT \(StoreRows.approvalColumns) FROM approvals WHERE state = 'pending' ORDER BY seq
                """) { row throws(StorageError) in try StoreRows.approval(row, in: db.name) }
            s.users = try db.query("SELECT \(StoreRows.userColumns) FROM users ORDER BY {rowOrder}") { StoreRows.user($0) }
            s.devices = try db.query("SELECT \(StoreRows.deviceColumns) FROM devices ORDER BY {rowOrder}") { StoreRows.device($0) }
            s.contacts = try db.query("SELECT \(StoreRows.contactColumns) FROM contacts ORDER BY {rowOrder}") { StoreRows.contact($0) }
            for (user, offset) in try db.query(DB.Dialect.logHeadsSQL, row: { ($0.string(0), $0.int64(1)) }) {
                s.latestOffsets[user] = max(s.latestOffsets[user] ?? 0, offset)
            }
            try loadPush(into: &s)
            try loadRelationships(into: &s)
            return s
        }
    }

    /// The highest message id stored (0 when none): one probe of the primary key.
    func latestMessageId() throws(StorageError) -> Int64 {
        try db.queryFirst("SELECT COALESCE(MAX(id), 0) FROM messages") { $0.int64(0) } ?? 0
    }

    /// The highest N of approval ids "apr_N" (decimal; ids that do not parse, or overflow, are ignored).
    func latestApprovalSequence() throws(StorageError) -> Int64 {
        try db.query(DB.Dialect.approvalSuffixesSQL) { $0.string(0) }.compactMap { Int64($0) }.max() ?? 0
    }

    /// Events of `userId` with offset > `after`, oldest first, at most `limit` (a negative limit means none).
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
                    WHERE to_user = ?1 AND from_user = ?2 AND id < ?3 ORDER BY id DESC LIMIT ?4) AS received
                UNION
                SELECT * FROM (SELECT id, from_user, to_user, text, sent_at FROM messages
                    WHERE to_user = ?2 AND from_user = ?1 AND id < ?3 ORDER BY id DESC LIMIT ?4) AS sent) AS conversation
            ORDER BY id DESC LIMIT ?4
            """) { $0.bind(1, a); $0.bind(2, b); $0.bind(3, before ?? Int64.max); $0.bind(4, max(0, limit)) } row: {
            MessageRecord(id: $0.int64(0), from: $0.string(1), to: $0.string(2), text: $0.unrestrictedText(3), sentAt: $0.int64(4))
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
        try db.query("""
            SELECT \(StoreRows.sessionColumns) FROM sessions WHERE user_id = ?1 AND state <> 'ended' ORDER BY created_at, id
            """) { $0.bind(1, userId) } row: { row throws(StorageError) in try StoreRows.session(row, in: db.name) }
    }

    func session(id: String) throws(StorageError) -> SessionRecord? {
        try db.queryFirst("SELECT \(StoreRows.sessionColumns) FROM sessions WHERE id = ?1") { $0.bind(1, id) } row: {
            row throws(StorageError) in try StoreRows.session(row, in: db.name)
        }
    }

    func approval(id: String) throws(StorageError) -> ApprovalRecord? {
        try db.queryFirst("SELECT \(StoreRows.approvalColumns) FROM approvals WHERE id = ?1") { $0.bind(1, id) } row: {
            row throws(StorageError) in try StoreRows.approval(row, in: db.name)
        }
    }

    /// Pending approvals due by `dueBy`, earliest deadline first.
    func pendingApprovals(dueBy: Int64, limit: Int) throws(StorageError) -> [ApprovalRecord] {
        // Few approvals are pending at any time: the (state, seq) index finds them, the sort is over those few.
        try db.query("""
            SELECT \(StoreRows.approvalColumns) FROM approvals WHERE state = 'pending' AND expires_at <= ?1
            ORDER BY expires_at, id LIMIT ?2
            """) { $0.bind(1, dueBy); $0.bind(2, Int64(max(0, limit))) } row: {
            row throws(StorageError) in try StoreRows.approval(row, in: db.name)
        }
    }

    func idempotentResponse(scope: String, key: String) throws(StorageError) -> IdempotencyRecord? {
        try db.queryFirst("SELECT response, request_hash FROM idempotency WHERE scope = ?1 AND \"key\" = ?2") {
            $0.bind(1, scope); $0.bind(2, key)
        } row: { IdempotencyRecord(response: $0.bytes(0), requestHash: $0.string(1)) }
    }
}
