import Gateway

/// Push outbox, tokens and settings. Targets, notices and settings are stored as JSON blobs (`PushBlobs`): the
/// outbox is read by id or by due time, never queried inside them.
extension RelationalReader {
    func loadPush(into snapshot: inout GatewaySnapshot) throws(StorageError) {
        snapshot.pushTokens = try db.query("SELECT \(StoreRows.pushTokenColumns) FROM push_tokens ORDER BY {rowOrder}") {
            StoreRows.pushToken($0)
        }
        for (user, blob) in try db.query("SELECT user_id, settings FROM notification_settings", row: { ($0.string(0), $0.bytes(1)) }) {
            snapshot.notificationSettings[user] = PushBlobs.settings(blob)
        }
    }

    func duePushJobs(now: Int64, limit: Int) throws(StorageError) -> [PushJobRecord] {
        try db.query("""
            SELECT \(StoreRows.pushColumns) FROM push_jobs WHERE state = 'pending' AND next_attempt_at <= ?1
            ORDER BY next_attempt_at, id LIMIT ?2
            """) { $0.bind(1, now); $0.bind(2, Int64(limit)) } row: { StoreRows.pushJob($0) }.compactMap { $0 }
    }

    /// `GatewayStore.claimPushJobs` as one statement, on the writer. SQLite has one writer, so it is atomic; on
    /// PostgreSQL rows another node is claiming at the same moment are skipped (`SKIP LOCKED`), not waited for, so
    /// concurrent claims get disjoint jobs without blocking each other. A user's later backend job stays behind an
    /// earlier one another node is claiming: that one is `pending` whoever holds it.
    func claimPushJobs(claimant: String, now: Int64, leaseMs: Int64, limit: Int) throws(StorageError) -> [PushJobRecord] {
        try db.query("""
            UPDATE push_jobs SET claimed_by = ?1, lease_until = ?2 + ?3
            WHERE id IN (SELECT id FROM push_jobs j WHERE state = 'pending' AND next_attempt_at <= ?2
                AND (lease_until IS NULL OR lease_until < ?2) AND \(Self.notBehindEarlierBackendJob)
                ORDER BY next_attempt_at, id LIMIT ?4 {skipLocked})
            RETURNING \(StoreRows.pushColumns)
            """) { $0.bind(1, claimant); $0.bind(2, now); $0.bind(3, leaseMs); $0.bind(4, Int64(limit)) } row: { StoreRows.pushJob($0) }
            .compactMap { $0 }.sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
    }

    func pushJob(id: Int64) throws(StorageError) -> PushJobRecord? {
        try db.queryFirst("SELECT \(StoreRows.pushColumns) FROM push_jobs WHERE id = ?1") { $0.bind(1, id) } row: {
            StoreRows.pushJob($0)
        } ?? nil
    }

    func pendingPushJobs() throws(StorageError) -> Int {
        // Counted on the `push_jobs_due` index.
        Int(try db.queryFirst("SELECT COUNT(*) FROM push_jobs WHERE state = 'pending'") { $0.int64(0) } ?? 0)
    }

    /// The count and oldest `created_at` of pending backend webhook jobs (their rows have no device).
    func pendingBackendWebhooks() throws(StorageError) -> (count: Int, oldestCreatedAt: Int64?) {
        try db.queryFirst("SELECT COUNT(*), MIN(created_at) FROM push_jobs WHERE state = 'pending' AND device_id = ''") {
            (Int($0.int64(0)), $0.optionalInt64(1))
        } ?? (0, nil)
    }

    /// The claim's condition on a candidate row `j`: a backend webhook job (no device) waits while an earlier one of
    /// its user is pending — being sent or backing off — so a user's webhooks go out in the order they were committed
    /// (`user_offline` never before its `user_online`); push jobs never wait. `push_jobs_backend_pending` answers it
    /// in one probe.
    static var notBehindEarlierBackendJob: String {
        """
        (j.device_id <> '' OR NOT EXISTS (SELECT 1 FROM push_jobs e WHERE e.user_id = j.user_id AND e.id < j.id
            AND e.state = 'pending' AND e.device_id = ''))
        """
    }
}
