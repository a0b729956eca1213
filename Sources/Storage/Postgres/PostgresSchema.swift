/// The PostgreSQL schema, versioned with the same numbers as SQLite's (`SchemaMigrations`): migration N here makes
/// the same change as SQLite's migration N, so `schema_version` means the same thing on both engines. Mirrors SQLite
/// version 15 (the SQL of versions 13 and 15 is the same on both engines).
///
/// Differences from the SQLite text, all of meaning-preserving kind: `BIGINT`/`BYTEA`/`BOOLEAN` column types; tables
/// listed in first-insert order carry `row_order` (an identity column an upsert keeps) where SQLite uses `rowid`;
/// `seq` (last-upsert order of sessions and approvals) comes from a sequence rather than `MAX(seq) + 1`, so two
/// nodes upserting at once never pick the same value; primary keys change in place (SQLite rebuilds tables);
/// `messages.text` is UTF-8 in a `BYTEA`, because PostgreSQL `TEXT` cannot hold a NUL character and message
/// bodies are arbitrary JSON strings (other text columns refuse a NUL with an error: see `PostgresConnection.query`).
enum PostgresSchema {
    static let migrations: [(version: Int, sql: String)] = [
        (1, v1), (2, v2), (3, v3), (4, v4), (5, v5), (6, v6), (7, v7), (8, v8), (9, v9), (10, v10),
        (11, v11), (12, v12), (13, SchemaV13.sql), (14, v14), (15, SchemaV15.sql)
    ]

    /// Any constant both nodes agree on: the key of the advisory lock that serialises migrations.
    static let migrationLock: Int64 = 0x5357_4254_4D49_4752  // "SWBTMIGR"

    /// Brings the database to the newest version. Each migration runs in its own transaction holding
    /// `pg_advisory_xact_lock`, and re-reads the version under that lock: two nodes starting together migrate once
    /// (the second waits, then finds nothing to do). Throws when the database's schema is newer than this build.
    @discardableResult
    static func migrate(_ db: PostgresDatabase) throws(StorageError) -> Int {
        try inLockedTransaction(db, "creating schema_version") { () throws(StorageError) in
            try db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            if try db.int64("SELECT version FROM schema_version LIMIT 1") == nil {
                try db.execute("INSERT INTO schema_version (version) VALUES (0)")
            }
        }
        let newest = migrations.map(\.version).max() ?? 0
        for migration in migrations {
            try inLockedTransaction(db, "migration \(migration.version)") { () throws(StorageError) in
                let version = Int(try db.int64("SELECT version FROM schema_version LIMIT 1") ?? 0)
                guard version < migration.version else { return }
                guard version == migration.version - 1 else {
                    throw StorageError(
                        "\(db.name): schema version \(version) cannot take migration \(migration.version)")
                }
                try db.execute(migration.sql)
                try db.query("UPDATE schema_version SET version = $1", [migration.version])
            }
        }
        let version = Int(try db.int64("SELECT version FROM schema_version LIMIT 1") ?? 0)
        if version > newest {
            throw StorageError("\(db.name): schema version \(version) is newer than this build supports (\(newest))")
        }
        return version
    }

    private static func inLockedTransaction(
        _ db: PostgresDatabase, _ what: String,
        _ body: () throws(StorageError) -> Void
    ) throws(StorageError) {
        try db.execute("BEGIN")
        do {
            // Waiting for another node's migration, or migrating a large table, is not bound by the statement timeout.
            try db.execute("SET LOCAL statement_timeout = 0")
            try db.query("SELECT pg_advisory_xact_lock($1)", [migrationLock])
            try body()
            try db.execute("COMMIT")
        } catch {
            if !db.isAutocommit { try? db.execute("ROLLBACK") }
            throw error.prefixed("[\(what)] ")
        }
    }

    static let v1 = """
        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            hex_code TEXT NOT NULL UNIQUE,
            display_name TEXT,
            created_at BIGINT NOT NULL,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY
        );
        CREATE TABLE devices (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            client_type TEXT NOT NULL,
            device_token TEXT UNIQUE,
            created_at BIGINT NOT NULL,
            acked_offset BIGINT NOT NULL DEFAULT 0,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY
        );
        CREATE INDEX devices_by_user ON devices (user_id);
        CREATE TABLE contacts (
            user_id TEXT NOT NULL,
            contact_id TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            active BOOLEAN NOT NULL,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY,
            PRIMARY KEY (user_id, contact_id)
        );
        CREATE TABLE events (
            user_id TEXT NOT NULL,
            "offset" BIGINT NOT NULL,
            type TEXT NOT NULL,
            payload BYTEA NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (user_id, "offset")
        );
        CREATE TABLE event_log_heads (
            user_id TEXT PRIMARY KEY,
            latest_offset BIGINT NOT NULL
        );
        CREATE SEQUENCE sessions_seq;
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            title TEXT,
            state TEXT NOT NULL,
            active_client_type TEXT,
            active_device_id TEXT,
            active_last_activity_at BIGINT,
            created_at BIGINT NOT NULL,
            ended_at BIGINT,
            seq BIGINT NOT NULL
        );
        CREATE INDEX sessions_open ON sessions (seq) WHERE state <> 'ended';
        CREATE SEQUENCE approvals_seq;
        CREATE TABLE approvals (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            tool_name TEXT NOT NULL,
            summary TEXT NOT NULL,
            details BYTEA,
            state TEXT NOT NULL,
            decided_by_device_id TEXT,
            decided_by_client_type TEXT,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            resolved_at BIGINT,
            seq BIGINT NOT NULL
        );
        CREATE INDEX approvals_by_state ON approvals (state, seq);
        CREATE INDEX approvals_due ON approvals (expires_at, id) WHERE state = 'pending';
        CREATE TABLE messages (
            id BIGINT PRIMARY KEY,
            from_user TEXT NOT NULL,
            to_user TEXT NOT NULL,
            text BYTEA NOT NULL,
            sent_at BIGINT NOT NULL,
            pair_low TEXT NOT NULL,
            pair_high TEXT NOT NULL
        );
        CREATE INDEX messages_by_pair ON messages (pair_low, pair_high, id);
        CREATE INDEX messages_by_recipient ON messages (to_user, from_user, id);
        CREATE TABLE read_marks (
            user_id TEXT NOT NULL,
            peer_id TEXT NOT NULL,
            message_id BIGINT NOT NULL,
            PRIMARY KEY (user_id, peer_id)
        );
        CREATE TABLE idempotency (
            scope TEXT NOT NULL,
            "key" TEXT NOT NULL,
            response BYTEA NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (scope, "key")
        );
        """

    static let v2 = """
        CREATE TABLE friend_requests (
            id TEXT PRIMARY KEY,
            from_user TEXT NOT NULL,
            to_user TEXT NOT NULL,
            state TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            resolved_at BIGINT,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY
        );
        CREATE UNIQUE INDEX friend_requests_one_pending ON friend_requests (from_user, to_user) WHERE state = 'pending';
        CREATE TABLE contact_pauses (
            user_id TEXT NOT NULL,
            contact_id TEXT NOT NULL,
            paused_at BIGINT NOT NULL,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY,
            PRIMARY KEY (user_id, contact_id)
        );
        CREATE TABLE connect_codes (
            code TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT,
            revoked_at BIGINT,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY
        );
        CREATE UNIQUE INDEX connect_codes_one_current ON connect_codes (user_id) WHERE revoked_at IS NULL;
        CREATE TABLE user_groups (
            id TEXT PRIMARY KEY,
            owner_id TEXT NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            max_members BIGINT NOT NULL,
            invite_policy TEXT NOT NULL,
            role_limits TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY
        );
        CREATE TABLE group_members (
            group_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            role TEXT NOT NULL,
            active BOOLEAN NOT NULL,
            created_at BIGINT NOT NULL,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY,
            PRIMARY KEY (group_id, user_id)
        );
        CREATE INDEX group_members_by_user ON group_members (user_id);
        CREATE TABLE invites (
            code TEXT PRIMARY KEY,
            group_id TEXT NOT NULL,
            inviter_id TEXT NOT NULL,
            recipient TEXT,
            role TEXT NOT NULL,
            state TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            used_by TEXT,
            used_at BIGINT,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY
        );
        CREATE INDEX invites_by_recipient ON invites (group_id, recipient, created_at);
        CREATE TABLE user_phones (
            user_id TEXT PRIMARY KEY,
            phone TEXT NOT NULL UNIQUE,
            verified_at BIGINT NOT NULL,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY
        );
        """

    static let v3 = """
        CREATE TABLE push_jobs (
            id BIGINT PRIMARY KEY,
            user_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            target BYTEA NOT NULL,
            notice BYTEA NOT NULL,
            fallback BYTEA,
            state TEXT NOT NULL,
            attempts BIGINT NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            last_error TEXT,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX push_jobs_due ON push_jobs (state, next_attempt_at, id);
        CREATE TABLE push_tokens (
            device_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            session_id TEXT NOT NULL,
            token TEXT NOT NULL,
            environment TEXT,
            updated_at BIGINT NOT NULL,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY,
            PRIMARY KEY (device_id, kind, session_id)
        );
        CREATE TABLE notification_settings (
            user_id TEXT PRIMARY KEY,
            settings BYTEA NOT NULL
        );
        """

    /// SQLite's version 8 (`SchemaV8`): claim columns, and ids from an identity column (SQLite's `INTEGER PRIMARY
    /// KEY` already assigns them) starting past the largest id stored.
    static let v8 = """
        ALTER TABLE push_jobs ADD COLUMN claimed_by TEXT;
        ALTER TABLE push_jobs ADD COLUMN lease_until BIGINT;
        ALTER TABLE push_jobs ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY;
        SELECT setval(pg_get_serial_sequence('push_jobs', 'id'), COALESCE((SELECT MAX(id) FROM push_jobs), 0) + 1, false);
        """

    /// Message and approval ids from sequences (`GatewayStore.reserveIds`), started above the highest stored, so
    /// nodes sharing the database never draw the same id. SQLite's version 9 changes nothing (its one writer keeps
    /// the counter in the store).
    static let v9 = """
        CREATE SEQUENCE message_ids;
        SELECT setval('message_ids', COALESCE((SELECT MAX(id) FROM messages), 0) + 1, false);
        CREATE SEQUENCE approval_ids;
        SELECT setval('approval_ids', COALESCE((SELECT MAX(CAST(substr(id, 5) AS BIGINT)) FROM approvals
            WHERE id ~ '^apr_[0-9]{1,18}$'), 0) + 1, false);
        """

    static let v4 = """
        ALTER TABLE idempotency ADD COLUMN request_hash TEXT NOT NULL DEFAULT '';
        """

    /// Devices keyed by (user, id), push tokens by (user, device, kind, session); a token whose device is unknown is
    /// dropped (as SQLite's rebuild does).
    static let v5 = """
        ALTER TABLE devices DROP CONSTRAINT devices_pkey;
        ALTER TABLE devices ADD PRIMARY KEY (user_id, id);
        ALTER TABLE push_tokens ADD COLUMN user_id TEXT;
        UPDATE push_tokens AS t SET user_id = d.user_id FROM devices AS d WHERE d.id = t.device_id;
        DELETE FROM push_tokens WHERE user_id IS NULL;
        ALTER TABLE push_tokens ALTER COLUMN user_id SET NOT NULL;
        ALTER TABLE push_tokens DROP CONSTRAINT push_tokens_pkey;
        ALTER TABLE push_tokens ADD PRIMARY KEY (user_id, device_id, kind, session_id);
        """

    /// Device secrets stored as the lowercase hex SHA-256 of the secret (`SecretDigest.sha256Hex`), hashed in place.
    static let v6 = """
        UPDATE devices SET device_token = encode(sha256(convert_to(device_token, 'UTF8')), 'hex') WHERE device_token IS NOT NULL;
        """

    /// Messages keyed the way they are read, `(to_user, from_user, id)`, with a unique index by id (a taken id is the
    /// store's answer to another node's message) and no `pair_low`/`pair_high` copies (as SQLite's version 7).
    static let v7 = """
        DROP INDEX messages_by_pair;
        DROP INDEX messages_by_recipient;
        ALTER TABLE messages DROP CONSTRAINT messages_pkey;
        ALTER TABLE messages DROP COLUMN pair_low, DROP COLUMN pair_high;
        ALTER TABLE messages ADD PRIMARY KEY (to_user, from_user, id);
        CREATE UNIQUE INDEX messages_by_id ON messages (id);
        """

    /// SQLite's version 10 (`SchemaV10`): indexes for the per-user relationship reads, and each phone's hash
    /// (`PhoneNumber.hash`: lowercase hex SHA-256 of the E.164 text) hashed in place.
    static let v10 = """
        CREATE INDEX friend_requests_by_sender ON friend_requests (from_user);
        CREATE INDEX friend_requests_by_recipient ON friend_requests (to_user);
        CREATE INDEX contact_pauses_by_contact ON contact_pauses (contact_id);
        ALTER TABLE user_phones ADD COLUMN phone_hash TEXT;
        UPDATE user_phones SET phone_hash = encode(sha256(convert_to(phone, 'UTF8')), 'hex');
        CREATE INDEX user_phones_by_hash ON user_phones (phone_hash);
        """

    /// SQLite's version 11 (`SchemaV11`): presence push claims, and the devices indexed by device id alone.
    static let v11 = """
        CREATE TABLE presence_push_claims (
            user_id TEXT PRIMARY KEY,
            sent_at BIGINT NOT NULL
        );
        CREATE INDEX devices_by_id ON devices (id);
        """

    /// SQLite's version 12 (`SchemaV12`): open sessions indexed by user, for the per-user read.
    static let v12 = """
        DROP INDEX sessions_open;
        CREATE INDEX sessions_open_by_user ON sessions (user_id) WHERE state <> 'ended';
        """

    /// SQLite's version 14 (`SchemaV14`): blocks, one row per blocking side, read by either user.
    static let v14 = """
        CREATE TABLE user_blocks (
            user_id TEXT NOT NULL,
            blocked_id TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            row_order BIGINT GENERATED ALWAYS AS IDENTITY,
            PRIMARY KEY (user_id, blocked_id)
        );
        CREATE INDEX user_blocks_by_blocked ON user_blocks (blocked_id);
        """
}
