/// The push outbox, device push tokens and per-user notification settings (schema version 3).
enum SchemaPush {
    static let version = 3
    static let sql = """
    CREATE TABLE push_jobs (
        id INTEGER PRIMARY KEY NOT NULL,
        user_id TEXT NOT NULL,
        device_id TEXT NOT NULL,
        target BLOB NOT NULL,
        notice BLOB NOT NULL,
        fallback BLOB,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        next_attempt_at INTEGER NOT NULL,
        last_error TEXT,
        created_at INTEGER NOT NULL
    );
    CREATE INDEX push_jobs_due ON push_jobs (state, next_attempt_at, id);
    CREATE TABLE push_tokens (
        device_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        session_id TEXT NOT NULL,
        token TEXT NOT NULL,
        environment TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (device_id, kind, session_id)
    );
    CREATE TABLE notification_settings (
        user_id TEXT PRIMARY KEY NOT NULL,
        settings BLOB NOT NULL
    );
    """
}
