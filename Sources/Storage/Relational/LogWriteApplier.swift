import Gateway

/// The event log, direct messages, read marks, idempotency keys and presence-push claims.
struct LogWriteApplier<Engine: EngineWrites> {
    let engine: Engine
    private var db: Engine.DB { engine.db }

    func run(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) {
        switch write {
        case .appendEvent(let e):
            receipt.offsets.append(try engine.appendEvent(userId: e.userId, type: e.type, payload: e.payload, createdAt: e.createdAt))
        case .insertMessage(let m):
            // Keyed the way conversations are read: (recipient, sender, id); ids stay unique by `messages_by_id`.
            let inserted = try db.insertUnlessTaken("""
                INSERT INTO messages (to_user, from_user, id, text, sent_at) VALUES (?3, ?2, ?1, ?4, ?5) {ifAbsent:id}
                """) { $0.bind(1, m.id); $0.bind(2, m.from); $0.bind(3, m.to); $0.bindUnrestrictedText(4, m.text); $0.bind(5, m.sentAt) }
            if !inserted {
                let latest = try db.queryFirst("SELECT COALESCE(MAX(id), 0) FROM messages") { $0.int64(0) } ?? m.id
                throw StorageError(conflict: .idTaken(.message, latest: latest))
            }
        case .setReadMark(let userId, let peerId, let messageId):
            try db.run("""
                INSERT INTO read_marks (user_id, peer_id, message_id) VALUES (?1, ?2, ?3)
                ON CONFLICT (user_id, peer_id) DO UPDATE SET message_id = {greatest}(read_marks.message_id, excluded.message_id)
                """) { $0.bind(1, userId); $0.bind(2, peerId); $0.bind(3, messageId) }
        case .claimIdempotency(let scope, let key, let response, let requestHash, let createdAt):
            try db.run("""
                INSERT INTO idempotency (scope, "key", response, created_at, request_hash) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (scope, "key") DO NOTHING
                """) { $0.bind(1, scope); $0.bind(2, key); $0.bind(3, response); $0.bind(4, createdAt); $0.bind(5, requestHash) }
            if db.changes == 0, let current = try RelationalReader(db: db).idempotentResponse(scope: scope, key: key) {
                throw StorageError(conflict: .idempotencyKeyClaimed(scope: scope, key: key, current: current))
            }
        case .putIdempotency(let scope, let key, let response, let requestHash, let createdAt):
            try db.run("""
                INSERT INTO idempotency (scope, "key", response, created_at, request_hash) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (scope, "key") DO UPDATE SET response = excluded.response, created_at = excluded.created_at,
                    request_hash = excluded.request_hash
                """) { $0.bind(1, scope); $0.bind(2, key); $0.bind(3, response); $0.bind(4, createdAt); $0.bind(5, requestHash) }
        case .claimPresencePush(let userId, let at, let intervalMs):
            try db.run("""
                INSERT INTO presence_push_claims (user_id, sent_at) VALUES (?1, ?2)
                ON CONFLICT (user_id) DO UPDATE SET sent_at = excluded.sent_at
                WHERE presence_push_claims.sent_at <= excluded.sent_at - CAST(?3 AS BIGINT)
                """) { $0.bind(1, userId); $0.bind(2, at); $0.bind(3, intervalMs) }
            if db.changes == 0 {
                let current = try db.queryFirst("SELECT sent_at FROM presence_push_claims WHERE user_id = ?1") {
                    $0.bind(1, userId)
                } row: { $0.int64(0) }
                throw StorageError(conflict: .presencePushClaimed(userId: userId, at: current ?? at))
            }
        default:
            preconditionFailure("not a log write")
        }
    }

    /// See `RelationalWriteApplier.pruneEvents`.
    func pruneEvents(before: Int64, keepLatest: Int) throws(StorageError) -> Int {
        try db.allowLongStatements()   // a scan of the whole log
        if keepLatest <= 0 {
            // `WHERE true`: SQLite reads `ON` after a bare `GROUP BY` as a join's.
            try db.run("""
                INSERT INTO event_log_heads (user_id, latest_offset)
                SELECT user_id, MAX("offset") FROM events WHERE true GROUP BY user_id
                ON CONFLICT (user_id) DO UPDATE SET latest_offset = {greatest}(event_log_heads.latest_offset, excluded.latest_offset)
                """)
        }
        try db.run("""
            DELETE FROM events WHERE created_at < ?1 AND (user_id, "offset") IN (
                SELECT user_id, "offset" FROM (
                    SELECT user_id, "offset", created_at,
                        row_number() OVER (PARTITION BY user_id ORDER BY "offset" DESC) AS newest_rank
                    FROM events) AS ranked
                WHERE newest_rank > ?2 AND created_at < ?1)
            """) { $0.bind(1, before); $0.bind(2, Int64(keepLatest)) }
        return db.changes
    }
}
