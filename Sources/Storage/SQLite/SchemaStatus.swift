/// The schema version of a database file and of this build, for `switchboard migrate` (migrations themselves run
/// whenever `SQLiteGatewayStore` opens a file).
public enum SchemaStatus {
    /// The newest schema version this build knows.
    public static var latestVersion: Int { SchemaMigrations.all.map(\.version).max() ?? 0 }

    /// The version recorded in the database at `path`, read without changing anything: nil when the file does not
    /// exist or has no schema yet (a new database). Throws when the file exists but is not a readable database.
    public static func currentVersion(path: String) throws(StorageError) -> Int? {
        let db = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 5000)
        defer { db.close() }
        let hasTable = try db.queryFirst("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'") { _ in true }
        guard hasTable == true else { return nil }
        return try SchemaMigrations.currentVersion(db)
    }
}
