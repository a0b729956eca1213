import FoundationEssentials
import Gateway
import JSON

/// Push outbox, tokens and settings on SQLite. Targets, notices and settings are stored as JSON blobs: the outbox
/// is read by id or by due time, never queried inside them.
extension StoreWriteApplier {
    func applyPush(_ write: StoreWrite) throws(StorageError) {
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
            // Only the claim's holder records (`IS`: NULL matches NULL, a job nobody claimed).
            try db.run("""
                UPDATE push_jobs SET state = ?2, attempts = ?3, next_attempt_at = ?4, last_error = ?5,
                    claimed_by = NULL, lease_until = NULL WHERE id = ?1 AND claimed_by IS ?6
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
            break
        }
    }

}

extension StoreReader {
    func loadPush(into snapshot: inout GatewaySnapshot) throws(StorageError) {
        snapshot.pushTokens = try db.query("""
            SELECT device_id, kind, token, environment, session_id, updated_at, user_id FROM push_tokens ORDER BY rowid
            """, row: Self.pushToken)
        let settings = try db.query("SELECT user_id, settings FROM notification_settings") { ($0.string(0), $0.bytes(1)) }
        for (user, blob) in settings {
            snapshot.notificationSettings[user] = PushBlobs.settings(blob)
        }
    }

    /// A row of `device_id, kind, token, environment, session_id, updated_at, user_id`.
    static func pushToken(_ row: SQLiteStatement) -> PushTokenRecord {
        PushTokenRecord(userId: row.string(6), deviceId: row.string(0), kind: row.string(1), token: row.string(2),
                        environment: row.optionalString(3), sessionId: row.string(4), updatedAt: row.int64(5))
    }

    func duePushJobs(now: Int64, limit: Int) throws(StorageError) -> [PushJobRecord] {
        try db.query("""
            SELECT \(Self.pushColumns) FROM push_jobs WHERE state = 'pending' AND next_attempt_at <= ?1
            ORDER BY next_attempt_at, id LIMIT ?2
            """) { $0.bind(1, now); $0.bind(2, Int64(limit)) } row: { Self.pushJob($0) }.compactMap { $0 }
    }

    /// `GatewayStore.claimPushJobs` as one statement on the writer (SQLite has one writer, so it is atomic).
    func claimPushJobs(claimant: String, now: Int64, leaseMs: Int64, limit: Int) throws(StorageError) -> [PushJobRecord] {
        try db.query("""
            UPDATE push_jobs SET claimed_by = ?1, lease_until = ?2 + ?3
            WHERE id IN (SELECT id FROM push_jobs j WHERE state = 'pending' AND next_attempt_at <= ?2
                AND (lease_until IS NULL OR lease_until < ?2) AND \(Self.notBehindEarlierBackendJob)
                ORDER BY next_attempt_at, id LIMIT ?4)
            RETURNING \(Self.pushColumns)
            """) { $0.bind(1, claimant); $0.bind(2, now); $0.bind(3, leaseMs); $0.bind(4, Int64(limit)) } row: { Self.pushJob($0) }
            .compactMap { $0 }.sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
    }

    func pushJob(id: Int64) throws(StorageError) -> PushJobRecord? {
        try db.queryFirst("SELECT \(Self.pushColumns) FROM push_jobs WHERE id = ?1") { $0.bind(1, id) } row: { Self.pushJob($0) } ?? nil
    }

    /// The claim's condition on a candidate row `j`, in both dialects: a backend webhook job (no device) waits while an
    /// earlier one of its user is pending — being sent or backing off — so a user's webhooks go out in the order they
    /// were committed (`user_offline` never before its `user_online`); push jobs never wait. `push_jobs_backend_pending`
    /// answers it in one probe.
    static let notBehindEarlierBackendJob = """
        (j.device_id <> '' OR NOT EXISTS (SELECT 1 FROM push_jobs e WHERE e.user_id = j.user_id AND e.id < j.id
            AND e.state = 'pending' AND e.device_id = ''))
        """

    /// The count and oldest `created_at` of pending backend webhook jobs (their rows have no device), in both dialects.
    static let pendingBackendWebhooksSQL = "SELECT COUNT(*), MIN(created_at) FROM push_jobs WHERE state = 'pending' AND device_id = ''"

    static let pushColumns = "id, user_id, device_id, target, notice, fallback, state, attempts, next_attempt_at, last_error, created_at"

    private static func pushJob(_ row: SQLiteStatement) -> PushJobRecord? {
        PushBlobs.job(id: row.int64(0), userId: row.string(1), deviceId: row.string(2), target: row.bytes(3), notice: row.bytes(4),
                      fallback: row.optionalBytes(5), state: row.string(6), attempts: Int(row.int64(7)), nextAttemptAt: row.int64(8),
                      lastError: row.optionalString(9), createdAt: row.int64(10))
    }
}

/// The JSON blobs push rows keep (targets, notices, settings), shared by both stores.
enum PushBlobs {
    static func encode(_ value: some Encodable) -> [UInt8] {
        (try? JSONEncoder().encode(value)).map(Array.init) ?? []
    }

    static func settings(_ blob: [UInt8]) -> NotificationSettings? {
        try? StrictJSONDecoder().decode(NotificationSettings.self, from: blob)
    }

    /// nil when a blob does not decode (a row written by a newer build): skipped rather than crashing the sender.
    static func job(id: Int64, userId: String, deviceId: String, target: [UInt8], notice: [UInt8], fallback: [UInt8]?, state: String,
                    attempts: Int, nextAttemptAt: Int64, lastError: String?, createdAt: Int64) -> PushJobRecord? {
        let decoder = StrictJSONDecoder()
        guard let target = try? decoder.decode(PushTarget.self, from: target),
              let notice = try? decoder.decode(PushNotice.self, from: notice) else { return nil }
        let fallback = fallback.flatMap { try? decoder.decode(PushTarget.self, from: $0) }
        return PushJobRecord(id: id, userId: userId, deviceId: deviceId, target: target, notice: notice, fallback: fallback,
                             state: state, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError, createdAt: createdAt)
    }
}
