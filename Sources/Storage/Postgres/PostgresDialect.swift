/// PostgreSQL's spelling of the shared statements (`SQLDialect`). Several nodes write one database, so the reads a
/// decision rests on take row locks.
enum PostgresDialect: SQLDialect {
    static func placeholder(_ index: Substring) -> String { "$" + index }
    static let rowOrder = "row_order"
    static let greatest = "GREATEST"
    static let forUpdate = "FOR UPDATE"
    static let skipLocked = "FOR UPDATE SKIP LOCKED"

    /// The table's own sequence (`sessions_seq`, `approvals_seq`): never handed out twice across nodes.
    static func nextSequenceValue(table: Substring) -> String { "nextval('\(table)_seq')" }
    /// A statement's error aborts the whole PostgreSQL transaction, so a taken key must not be one.
    static func ifAbsent(key: Substring) -> String { "ON CONFLICT (\(key)) DO NOTHING" }

    static let logHeadsSQL = """
        SELECT user_id, MAX("offset") FROM events GROUP BY user_id
        UNION ALL SELECT user_id, latest_offset FROM event_log_heads
        """

    static let approvalSuffixesSQL = "SELECT substr(id, 5) FROM approvals WHERE id ~ '^apr_[0-9]'"
}
