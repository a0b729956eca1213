/// One step of the schema's history. Versions are 1, 2, 3, … with no gaps; a released migration never changes
/// (a fix is a new migration).
struct SchemaMigration: Sendable {
    let version: Int
    let sql: String
    /// Row rewrites SQL cannot express (hashing), run after `sql` in the same transaction.
    var transform: (@Sendable (SQLiteConnection) throws(StorageError) -> Void)? = nil
}

/// Brings a database up to the newest schema: the one-row `schema_version` table records the applied version and
/// each pending migration runs in its own `BEGIN IMMEDIATE` transaction (so a crash leaves a consistent version,
/// and two processes opening the same file at once do not both apply a step).
enum SchemaMigrations {
    static let all: [SchemaMigration] = [
        SchemaMigration(version: 1, sql: SchemaV1.sql),
        SchemaMigration(version: 2, sql: SchemaV2.sql),
        SchemaMigration(version: SchemaPush.version, sql: SchemaPush.sql),
        SchemaMigration(version: SchemaV4.version, sql: SchemaV4.sql),
        SchemaMigration(version: SchemaV5.version, sql: SchemaV5.sql),
        SchemaMigration(version: SchemaV6.version, sql: SchemaV6.sql, transform: SchemaV6.hashDeviceSecrets),
        SchemaMigration(version: SchemaV7.version, sql: SchemaV7.sql),
        SchemaMigration(version: SchemaV8.version, sql: SchemaV8.sql),
        SchemaMigration(version: SchemaV9.version, sql: SchemaV9.sql),
        SchemaMigration(version: SchemaV10.version, sql: SchemaV10.sql, transform: SchemaV10.hashPhones),
        SchemaMigration(version: SchemaV11.version, sql: SchemaV11.sql),
        SchemaMigration(version: SchemaV12.version, sql: SchemaV12.sql),
        SchemaMigration(version: SchemaV13.version, sql: SchemaV13.sql),
        SchemaMigration(version: SchemaV14.version, sql: SchemaV14.sql),
        SchemaMigration(version: SchemaV15.version, sql: SchemaV15.sql)
    ]

    /// Applies every migration newer than the recorded version, in order; returns the resulting version.
    /// Throws when the file is not a database, a migration fails (rolled back), or the file's schema is newer
    /// than this build knows.
    @discardableResult
    static func migrate(_ db: SQLiteConnection, migrations: [SchemaMigration] = all) throws(StorageError) -> Int {
        try inTransaction(db, "creating schema_version") { () throws(StorageError) in
            try db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            if try currentVersion(db) == nil { try db.execute("INSERT INTO schema_version (version) VALUES (0)") }
        }
        let newest = migrations.map(\.version).max() ?? 0
        for migration in migrations.sorted(by: { $0.version < $1.version }) {
            try inTransaction(db, "migration \(migration.version)") { () throws(StorageError) in
                // Re-read inside the write lock: another process may have migrated since.
                let version = try currentVersion(db) ?? 0
                guard version < migration.version else { return }
                guard version == migration.version - 1 else {
                    throw StorageError(
                        "\(db.path): schema version \(version) cannot take migration \(migration.version)")
                }
                try db.execute(migration.sql)
                try migration.transform?(db)
                try db.run("UPDATE schema_version SET version = ?1") { $0.bind(1, migration.version) }
            }
        }
        let version = try currentVersion(db) ?? 0
        if version > newest {
            throw StorageError("\(db.path): schema version \(version) is newer than this build supports (\(newest))")
        }
        return version
    }

    /// The recorded version, nil when the table is empty.
    static func currentVersion(_ db: SQLiteConnection) throws(StorageError) -> Int? {
        try db.queryFirst("SELECT version FROM schema_version LIMIT 1") { Int($0.int64(0)) }
    }

    private static func inTransaction(
        _ db: SQLiteConnection, _ what: String,
        _ body: () throws(StorageError) -> Void
    ) throws(StorageError) {
        try db.execute("BEGIN IMMEDIATE")
        do {
            try body()
            try db.execute("COMMIT")
        } catch {
            if !db.isAutocommit { try? db.execute("ROLLBACK") }
            throw StorageError(error.message + " [\(what)]", sqliteCode: error.sqliteCode)
        }
    }
}
