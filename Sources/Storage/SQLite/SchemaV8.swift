/// Push jobs claimed with a lease, so that any node sharing the database drains the outbox and each job is sent by
/// one of them: `claimed_by` names the claimant (for operators; the lease decides), `lease_until` is when the claim
/// runs out and another node may take the job (its claimant died mid-send). Ids were already the store's here
/// (`INTEGER PRIMARY KEY`: an insert without an id takes the largest + 1; jobs are never deleted, so never reused).
enum SchemaV8 {
    static let version = 8
    static let sql = """
    ALTER TABLE push_jobs ADD COLUMN claimed_by TEXT;
    ALTER TABLE push_jobs ADD COLUMN lease_until INTEGER;
    """
}
