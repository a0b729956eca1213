/// Devices are scoped by their user. Device ids come from clients (the token's `device_id`), so two users may use the
/// same one; with `devices.id` as the primary key and push tokens keyed by device only, a second user's
/// `push_register` replaced the first user's token. Now the key is `(user_id, id)` for devices and
/// `(user_id, device_id, kind, session_id)` for push tokens. SQLite cannot change a primary key in place, so both
/// tables are rebuilt (rowid order kept: snapshots list rows in first-insert order). A token whose device is unknown
/// could never be used and is dropped.
enum SchemaV5 {
    static let version = 5
    static let sql = """
    CREATE TABLE devices_v5 (
        id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        client_type TEXT NOT NULL,
        device_token TEXT UNIQUE,
        created_at INTEGER NOT NULL,
        acked_offset INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (user_id, id)
    );
    INSERT INTO devices_v5 (id, user_id, client_type, device_token, created_at, acked_offset)
        SELECT id, user_id, client_type, device_token, created_at, acked_offset FROM devices ORDER BY rowid;
    CREATE TABLE push_tokens_v5 (
        user_id TEXT NOT NULL,
        device_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        session_id TEXT NOT NULL,
        token TEXT NOT NULL,
        environment TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, device_id, kind, session_id)
    );
    INSERT INTO push_tokens_v5 (user_id, device_id, kind, session_id, token, environment, updated_at)
        SELECT d.user_id, t.device_id, t.kind, t.session_id, t.token, t.environment, t.updated_at
        FROM push_tokens AS t JOIN devices AS d ON d.id = t.device_id ORDER BY t.rowid;
    DROP TABLE push_tokens;
    DROP TABLE devices;
    ALTER TABLE devices_v5 RENAME TO devices;
    ALTER TABLE push_tokens_v5 RENAME TO push_tokens;
    """
}
