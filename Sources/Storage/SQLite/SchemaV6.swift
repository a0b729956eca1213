import Auth

/// Standalone device secrets (`devices.device_token`) are stored as the lowercase hex SHA-256 of the secret, never
/// in clear: a copy of the database file no longer lets anyone register as those devices. The secret is chosen by
/// the app and should be high-entropy, so an unsalted digest is enough. Existing rows are hashed in place.
enum SchemaV6 {
    static let version = 6
    static let sql = ""

    static func hashDeviceSecrets(_ db: SQLiteConnection) throws(StorageError) {
        let rows = try db.query("SELECT rowid, device_token FROM devices WHERE device_token IS NOT NULL") { ($0.int64(0), $0.string(1)) }
        for (rowid, secret) in rows {
            try db.run("UPDATE devices SET device_token = ?2 WHERE rowid = ?1") { $0.bind(1, rowid); $0.bind(2, SecretDigest.sha256Hex(secret)) }
        }
    }
}
