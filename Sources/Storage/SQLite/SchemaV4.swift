/// Idempotency keys remember a digest of the request that first used them, so a reuse of the key for a different
/// request is refused instead of answered with someone else's result. Rows stored before keep "" (not checked).
enum SchemaV4 {
    static let version = 4
    static let sql = """
    ALTER TABLE idempotency ADD COLUMN request_hash TEXT NOT NULL DEFAULT '';
    """
}
