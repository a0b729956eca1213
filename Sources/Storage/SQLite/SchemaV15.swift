/// Revoked devices and deleted users (docs/PROTOCOL.md, "Account and device lifecycle"): one row per revoked device,
/// `device_id = '*'` for a deleted user's every device. Read with the user (its primary key leads with the user), and
/// kept after the device or user is gone, since their tokens stay valid JWTs until they expire. The same text on
/// both engines (`BIGINT` has SQLite's integer affinity).
enum SchemaV15 {
    static let version = 15
    static let sql = """
        CREATE TABLE device_revocations (
            user_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            revoked_at BIGINT NOT NULL,
            PRIMARY KEY (user_id, device_id)
        );
        """
}
