/// Blocks (docs/PROTOCOL.md, "Blocking"): one row per blocking side, read with either user (`UserRelationships.blocks`),
/// so the primary key serves the blocker and `user_blocks_by_blocked` the blocked.
enum SchemaV14 {
    static let version = 14
    static let sql = """
    CREATE TABLE user_blocks (
        user_id TEXT NOT NULL,
        blocked_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, blocked_id)
    );
    CREATE INDEX user_blocks_by_blocked ON user_blocks (blocked_id);
    """
}
