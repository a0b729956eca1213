import Gateway

/// The writes SQLite decides its own way (`EngineWrites`). One writer holds the database's write lock for the
/// whole transaction, so a read followed by a write is already one step.
struct SQLiteEngineWrites: EngineWrites {
    let db: SQLiteConnection
    /// The log heads this connection knows (the writer's); nil probes the log for every append.
    var logHeads: LogHeadCache? = nil

    /// One above the log's highest offset, or above the head kept when pruning emptied it: no hole, nothing below a
    /// committed offset. The head comes from `logHeads` when this connection knows it, else from one probe of the
    /// (user_id, offset) key.
    func appendEvent(userId: String, type: String, payload: [UInt8], createdAt: Int64) throws(StorageError) -> Int64 {
        let latest: Int64
        if let known = logHeads?.latest(userId) { latest = known } else { latest = try latestOffset(userId: userId) }
        let offset = latest + 1
        try db.run("INSERT INTO events (user_id, \"offset\", type, payload, created_at) VALUES (?1, ?2, ?3, ?4, ?5)") {
            $0.bind(1, userId); $0.bind(2, offset); $0.bind(3, type); $0.bind(4, payload); $0.bind(5, createdAt)
        }
        logHeads?.noteLatest(userId, offset)
        return offset
    }

    /// Insert if absent, then read the stored row: a user that exists costs no write.
    func insertUser(_ u: UserRecord) throws(StorageError) -> UserRecord {
        try db.run("INSERT INTO users (id, hex_code, display_name, created_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (id) DO NOTHING") {
            $0.bind(1, u.id); $0.bind(2, u.hexCode); $0.bind(3, u.displayName); $0.bind(4, u.createdAt)
        }
        let stored = try db.queryFirst("SELECT \(StoreRows.userColumns) FROM users WHERE id = ?1") { $0.bind(1, u.id) } row: {
            StoreRows.user($0)
        }
        return stored ?? u
    }

    /// Nothing to do: the single writer serialises, no other transaction can insert between the check and the insert.
    func serializeFriendRequests(between a: String, and b: String) {}

    /// The highest offset of the user's log, stored or kept as the head of an emptied log; 0 for a log never written.
    /// `ORDER BY … LIMIT 1` makes it one probe of the (user_id, offset) key.
    func latestOffset(userId: String) throws(StorageError) -> Int64 {
        try db.queryFirst("""
            SELECT max(COALESCE((SELECT "offset" FROM events WHERE user_id = ?1 ORDER BY "offset" DESC LIMIT 1), 0),
                       COALESCE((SELECT latest_offset FROM event_log_heads WHERE user_id = ?1), 0))
            """) { $0.bind(1, userId) } row: { $0.int64(0) } ?? 0
    }
}
