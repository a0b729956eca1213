/// SQLite's spelling of the shared statements (`SQLDialect`). One writer owns the file, so locking clauses are empty.
enum SQLiteDialect: SQLDialect {
    static func placeholder(_ index: Substring) -> String { "?" + index }
    static let rowOrder = "rowid"
    static let greatest = "max"
    static let forUpdate = ""
    static let skipLocked = ""

    static func nextSequenceValue(table: Substring) -> String { "(SELECT COALESCE(MAX(seq), 0) + 1 FROM \(table))" }
    /// Nothing: a plain insert stays the cheapest statement (a message is one), and a taken key is its constraint
    /// error, which leaves the transaction usable on SQLite.
    static func ifAbsent(key: Substring) -> String { "" }

    /// MAX(offset) per user, found by skipping from one user to the next along the primary key (one index seek per
    /// user instead of a scan of the whole log), then the heads saved when pruning emptied a log.
    static let logHeadsSQL = """
        WITH RECURSIVE log_users(id) AS (
            SELECT MIN(user_id) FROM events
            UNION ALL
            SELECT (SELECT MIN(user_id) FROM events WHERE user_id > log_users.id) FROM log_users
            WHERE log_users.id IS NOT NULL)
        SELECT id, (SELECT MAX("offset") FROM events WHERE user_id = log_users.id) FROM log_users
        WHERE id IS NOT NULL
        UNION ALL
        SELECT user_id, latest_offset FROM event_log_heads
        """

    static let approvalSuffixesSQL = "SELECT substr(id, 5) FROM approvals WHERE id GLOB 'apr_[0-9]*'"
}
