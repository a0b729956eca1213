/// The first schema. `offset` and `key` are quoted everywhere because both are SQL keywords.
///
/// Ordering columns: the snapshot lists users, devices and contacts in first-insert order (`rowid`, which an
/// upsert keeps), and open sessions / pending approvals in last-upsert order (`seq`, bumped on every upsert) —
/// the same order the in-memory reference store produces.
enum SchemaV1 {
    static let sql = """
    CREATE TABLE users (
        id TEXT PRIMARY KEY NOT NULL,
        hex_code TEXT NOT NULL UNIQUE,
        display_name TEXT,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE devices (
        id TEXT PRIMARY KEY NOT NULL,
        user_id TEXT NOT NULL,
        client_type TEXT NOT NULL,
        device_token TEXT UNIQUE,
        created_at INTEGER NOT NULL,
        acked_offset INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX devices_by_user ON devices (user_id);
    CREATE TABLE contacts (
        user_id TEXT NOT NULL,
        contact_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        active INTEGER NOT NULL,
        PRIMARY KEY (user_id, contact_id)
    );
    -- The per-user log: the primary key is the read path (resume from an offset), so no rowid.
    CREATE TABLE events (
        user_id TEXT NOT NULL,
        "offset" INTEGER NOT NULL,
        type TEXT NOT NULL,
        payload BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, "offset")
    ) WITHOUT ROWID;
    -- The highest offset of logs that pruning emptied, so offsets never restart after a restart.
    CREATE TABLE event_log_heads (
        user_id TEXT PRIMARY KEY NOT NULL,
        latest_offset INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY NOT NULL,
        user_id TEXT NOT NULL,
        title TEXT,
        state TEXT NOT NULL,
        active_client_type TEXT,
        active_device_id TEXT,
        active_last_activity_at INTEGER,
        created_at INTEGER NOT NULL,
        ended_at INTEGER,
        seq INTEGER NOT NULL
    );
    CREATE INDEX sessions_by_seq ON sessions (seq);
    CREATE INDEX sessions_open ON sessions (seq) WHERE state <> 'ended';
    CREATE TABLE approvals (
        id TEXT PRIMARY KEY NOT NULL,
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        summary TEXT NOT NULL,
        details BLOB,
        state TEXT NOT NULL,
        decided_by_device_id TEXT,
        decided_by_client_type TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        resolved_at INTEGER,
        seq INTEGER NOT NULL
    );
    CREATE INDEX approvals_by_state ON approvals (state, seq);
    CREATE INDEX approvals_by_seq ON approvals (seq);
    -- pair_low/pair_high hold the two users in a fixed order, so one index serves both directions of a conversation.
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY NOT NULL,
        from_user TEXT NOT NULL,
        to_user TEXT NOT NULL,
        text TEXT NOT NULL,
        sent_at INTEGER NOT NULL,
        pair_low TEXT NOT NULL,
        pair_high TEXT NOT NULL
    );
    CREATE INDEX messages_by_pair ON messages (pair_low, pair_high, id);
    CREATE INDEX messages_by_recipient ON messages (to_user, from_user, id);
    CREATE TABLE read_marks (
        user_id TEXT NOT NULL,
        peer_id TEXT NOT NULL,
        message_id INTEGER NOT NULL,
        PRIMARY KEY (user_id, peer_id)
    ) WITHOUT ROWID;
    CREATE TABLE idempotency (
        scope TEXT NOT NULL,
        "key" TEXT NOT NULL,
        response BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (scope, "key")
    ) WITHOUT ROWID;
    """
}
