/// A user's pending backend webhook jobs (the outbox's rows without a device) indexed in order: a claim passes over a
/// backend job while an earlier one of its user is still pending (`claimPushJobs`), and this index answers that per
/// candidate in one probe however long the outbox is (a backend outage leaves many pending).
enum SchemaV13 {
    static let version = 13
    static let sql = """
    CREATE INDEX push_jobs_backend_pending ON push_jobs (user_id, id) WHERE state = 'pending' AND device_id = '';
    """
}
