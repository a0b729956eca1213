import Gateway

/// The writes PostgreSQL decides its own way (`EngineWrites`): several nodes write one database, so each is one
/// statement whose row locks order the writers, or takes a lock first.
struct PostgresEngineWrites: EngineWrites {
    let db: PostgresDatabase

    /// The offset is taken in the insert: the head row in `event_log_heads` is raised by one (created at the log's
    /// highest stored offset + 1 the first time: logs written before heads were kept), and the event goes in at the
    /// head's new value, in one statement. The head's row lock, held to COMMIT, orders two nodes appending to one
    /// log: the second waits for the first's commit and takes the next offset, so nothing collides and nothing is
    /// retried. `GREATEST` with the log's `MAX` (one probe of the (user_id, offset) key) keeps the head right over a
    /// log another writer appended to without it.
    func appendEvent(userId: String, type: String, payload: [UInt8], createdAt: Int64) throws(StorageError) -> Int64 {
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
            """, [userId, type, payload, createdAt]).first?.int64(0) else {
            throw StorageError("appendEvent: no offset returned")
        }
        return offset
    }

    /// Insert if absent, the stored row returned either way: the no-op update locks and returns the row another node
    /// inserted (after waiting for its commit), so the first creator's hex code wins everywhere.
    func insertUser(_ u: UserRecord) throws(StorageError) -> UserRecord {
        guard let stored = try db.query("""
            INSERT INTO users (id, hex_code, display_name, created_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (id) DO UPDATE SET hex_code = users.hex_code
            RETURNING id, hex_code, display_name, created_at
            """, [u.id, u.hexCode, u.displayName, u.createdAt]).first.map(StoreRows.user) else {
            throw StorageError("insertUser: no row returned")
        }
        return stored
    }

    /// The pair's transaction-scoped advisory lock: the second of two nodes sending between the same two users waits
    /// for the first's commit, and its look-up — a statement of its own, so a fresh snapshot under READ COMMITTED —
    /// then sees the first's request.
    func serializeFriendRequests(between a: String, and b: String) throws(StorageError) {
        let pair = [a, b].sorted().joined(separator: "\u{1F}")
        try db.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", ["friend_request:" + pair])
    }
}
