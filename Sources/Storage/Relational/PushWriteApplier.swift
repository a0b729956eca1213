import Gateway

/// The push outbox, push tokens and notification settings. Targets, notices and settings are stored as JSON blobs
/// (`PushBlobs`).
struct PushWriteApplier<DB: SQLExecutor> {
    let db: DB

    func run(_ write: StoreWrite) throws(StorageError) {
        switch write {
        case .enqueuePush(let job):
            // No id: the store assigns the next one (ids are the store's, so nodes never collide).
            let target = PushBlobs.encode(job.target), notice = PushBlobs.encode(job.notice), fallback = job.fallback.map(PushBlobs.encode)
            try db.run("""
                INSERT INTO push_jobs (user_id, device_id, target, notice, fallback, state, attempts, next_attempt_at, last_error, created_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                """) {
                $0.bind(1, job.userId); $0.bind(2, job.deviceId); $0.bind(3, target); $0.bind(4, notice)
                $0.bind(5, fallback); $0.bind(6, job.state); $0.bind(7, job.attempts); $0.bind(8, job.nextAttemptAt)
                $0.bind(9, job.lastError); $0.bind(10, job.createdAt)
            }
        case .updatePushJob(let id, let state, let attempts, let nextAttemptAt, let lastError, let claimant):
            // Only the claim's holder records (NULL matches NULL: a job nobody claimed); on PostgreSQL the row lock
            // makes a concurrent claim wait and then see the outcome.
            try db.run("""
                UPDATE push_jobs SET state = ?2, attempts = ?3, next_attempt_at = ?4, last_error = ?5,
                    claimed_by = NULL, lease_until = NULL WHERE id = ?1 AND claimed_by IS NOT DISTINCT FROM CAST(?6 AS TEXT)
                """) {
                $0.bind(1, id); $0.bind(2, state); $0.bind(3, attempts); $0.bind(4, nextAttemptAt); $0.bind(5, lastError)
                $0.bind(6, claimant)
            }
        case .upsertPushToken(let t):
            try db.run("""
                INSERT INTO push_tokens (device_id, kind, session_id, token, environment, updated_at, user_id)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                ON CONFLICT (user_id, device_id, kind, session_id) DO UPDATE SET token = excluded.token,
                    environment = excluded.environment, updated_at = excluded.updated_at
                """) {
                $0.bind(1, t.deviceId); $0.bind(2, t.kind); $0.bind(3, t.sessionId); $0.bind(4, t.token)
                $0.bind(5, t.environment); $0.bind(6, t.updatedAt); $0.bind(7, t.userId)
            }
        case .deletePushToken(let userId, let deviceId, let kind, let sessionId):
            try db.run("DELETE FROM push_tokens WHERE user_id = ?4 AND device_id = ?1 AND kind = ?2 AND session_id = ?3") {
                $0.bind(1, deviceId); $0.bind(2, kind); $0.bind(3, sessionId); $0.bind(4, userId)
            }
        case .setNotificationSettings(let userId, let settings):
            let blob = PushBlobs.encode(settings)
            try db.run("""
                INSERT INTO notification_settings (user_id, settings) VALUES (?1, ?2)
                ON CONFLICT (user_id) DO UPDATE SET settings = excluded.settings
                """) { $0.bind(1, userId); $0.bind(2, blob) }
        default:
            preconditionFailure("not a push write")
        }
    }
}
