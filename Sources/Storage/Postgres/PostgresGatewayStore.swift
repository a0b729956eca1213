import Gateway

/// The `GatewayStore` for several nodes: one PostgreSQL database shared by every node, which makes each decision two
/// nodes could race on (see `StoreWrite`, `RelationalWriteApplier` and `PostgresEngineWrites`).
///
/// Same shape as `SQLiteGatewayStore`: `write` only queues; one writer thread owning one connection group-commits
/// everything queued since its last commit (the shared `GroupCommitWriter`: each batch in its own savepoint) and runs
/// the completions after COMMIT returned, in submission order. Reads use a second connection under a lock; they
/// block on the network and must not run on an event loop. A connection that broke is reopened on its next use; the
/// writes of a group that was in flight when it broke fail with a retryable `StorageError` and none of them is kept.
///
/// All methods may be called from any thread. After `close()` writes fail with a `StorageError` at once and reads throw.
public final class PostgresGatewayStore: RelationalGatewayStore, @unchecked Sendable {   // readDatabase is guarded by readLock
    private let name: String
    var storeName: String { name }
    let writer: GroupCommitWriter<PostgresWriteBackend>
    private let readLock = ConditionLock()
    private var readDatabase: PostgresDatabase?   // nil once closed

    /// Connects (twice: writer and reader), runs pending schema migrations (once across nodes starting together:
    /// `PostgresSchema.migrate`) and starts the writer thread. Throws a `StorageError` naming the database (never
    /// its password) when it cannot connect, a migration fails, or the schema is newer than this build.
    public init(options: PostgresStoreOptions) throws(StorageError) {
        name = options.redactedURL
        let writeDatabase = try PostgresDatabase(options: options)
        do throws(StorageError) {
            try PostgresSchema.migrate(writeDatabase)
            readDatabase = try PostgresDatabase(options: options)
        } catch {
            writeDatabase.close()
            throw error
        }
        writer = GroupCommitWriter(connection: PostgresWriteBackend(db: writeDatabase), maxBatchWrites: options.maxBatchWrites)
        do {
            try writer.start()
        } catch {
            writeDatabase.close()
            readDatabase?.close()
            throw error
        }
    }

    deinit { close() }

    /// Stops accepting writes, commits everything already queued, stops the writer thread and closes both
    /// connections. Idempotent.
    public func close() {
        writer.stop()
        readLock.withLock {
            readDatabase?.close()
            readDatabase = nil
        }
    }

    /// Batches the writer applied again after they lost a deadlock or serialization check.
    var raceRetryCount: Int { writer.raceRetryCount }

    /// `pg_database_size` of the shared database (every node reports the same figure), 0 when it cannot be read.
    public func databaseBytes() -> Int {
        (try? read { reader throws(StorageError) in Int(try reader.db.int64("SELECT pg_database_size(current_database())") ?? 0) }) ?? 0
    }

    /// The schema version this build brings a database to.
    public static var latestSchemaVersion: Int { PostgresSchema.migrations.map(\.version).max() ?? 0 }

    // MARK: GatewayStore

    /// From the database's sequences (`message_ids`, `approval_ids`, schema version 9): `nextval` is never rolled back
    /// and never handed out twice, so nodes sharing the database never draw the same id.
    public func reserveIds(_ sequence: IdSequence, count: Int, above: Int64) throws -> [Int64] {
        try read { reader throws(StorageError) in try Self.reserveIds(sequence, count: count, above: above, on: reader.db) }
    }

    /// `count` values of the sequence behind `sequence`, ascending; first moved past `above` (an id stored by a
    /// writer that did not draw from the sequence: a rare fallback, so a plain `setval` is enough).
    private static func reserveIds(_ sequence: IdSequence, count: Int, above: Int64,
                                   on db: PostgresDatabase) throws(StorageError) -> [Int64] {
        let name = sequence == .message ? "message_ids" : "approval_ids"
        if above > 0 {
            try db.query("SELECT setval('\(name)', $1) FROM \(name) WHERE last_value < $1", [above])
        }
        return try db.query("SELECT nextval('\(name)') FROM generate_series(1, $1)", [Int64(count)]).map { $0.int64(0) }.sorted()
    }

    func read<R>(_ body: (RelationalReader<PostgresDatabase>) throws(StorageError) -> R) throws(StorageError) -> R {
        readLock.lock()
        defer { readLock.unlock() }
        guard let readDatabase else { throw StorageError("\(name): store is closed") }
        return try body(RelationalReader(db: readDatabase))
    }
}

extension PostgresGatewayStore {
    /// The schema version recorded in the database, read without changing anything: nil when it has no schema yet.
    /// Throws when the database cannot be reached.
    public static func schemaVersion(options: PostgresStoreOptions) throws(StorageError) -> Int? {
        let db = try PostgresDatabase(options: options)
        defer { db.close() }
        guard try db.query("SELECT to_regclass('schema_version') IS NOT NULL").first?.bool(0) == true else { return nil }
        return try db.int64("SELECT version FROM schema_version LIMIT 1").map { Int($0) }
    }
}
