import CSQLite
import CSQLiteWAL

/// One SQLite connection and its prepared-statement cache (prepare once, reset and re-bind per use).
///
/// Not thread-safe: exactly one thread uses it at a time (the writer thread for the write connection; a reader
/// holding the store's read lock for the read-only one). Opened in multi-thread mode (`SQLITE_OPEN_NOMUTEX`),
/// so SQLite adds no locking of its own.
final class SQLiteConnection: SQLExecutor {
    typealias Dialect = SQLiteDialect
    let path: String
    private var db: OpaquePointer?
    private var cache: [String: SQLiteStatement] = [:]
    private var walHook: WALHook?  // kept alive while SQLite may call it

    /// Whether this connection's WAL writes are gathered (`WALGathering.on`), and if not why.
    let walGathering: WALGathering

    /// Opens (and with `readOnly == false` creates) the database. A file that is not a database is only
    /// detected by the first statement, not here. With `gatherWalWrites` the connection's WAL frames reach the OS as
    /// one `pwrite` per transaction (the `sb-wal` VFS, `CSQLiteWAL`) rather than two per page; a commit that returned
    /// is in the OS either way. A SQLite outside the versions the VFS was tested on opens on the default VFS
    /// (`walGathering` says so).
    init(path: String, readOnly: Bool, busyTimeoutMs: Int, gatherWalWrites: Bool = false) throws(StorageError) {
        self.path = path
        var handle: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var gathering = WALGathering.off
        if gatherWalWrites {
            let rc = csqlite_wal_register()
            if rc == SQLITE_MISMATCH {
                gathering = .refused(sqliteVersion: String(cString: sqlite3_libversion()))
            } else if rc != SQLITE_OK {
                throw StorageError.sqlite(path: path, db: nil, code: rc, context: "registering the sb-wal VFS")
            } else {
                gathering = .on
            }
        }
        walGathering = gathering
        let vfs = gathering == .on ? csqlite_wal_vfs_name() : nil
        let rc = sqlite3_open_v2(path, &handle, access | SQLITE_OPEN_NOMUTEX, vfs)
        guard rc == SQLITE_OK, let handle else {
            let error = StorageError.sqlite(path: path, db: handle, code: rc, context: "opening the database")
            sqlite3_close_v2(handle)
            throw error
        }
        db = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(clamping: busyTimeoutMs))
    }

    deinit { close() }

    /// Finalizes every cached statement and closes the connection. Idempotent.
    func close() {
        for statement in cache.values { sqlite3_finalize(statement.handle) }
        cache.removeAll()
        if let db {
            sqlite3_wal_hook(db, nil, nil)
            sqlite3_close_v2(db)
        }
        db = nil
        walHook = nil
    }

    /// Calls `body` with the WAL's length in frames after every commit of this connection, on the committing thread,
    /// once the commit is done. Replaces SQLite's automatic checkpoint (`wal_autocheckpoint`, itself such a hook):
    /// from here on this connection never checkpoints by itself.
    func onWALCommit(_ body: @escaping (Int) -> Void) {
        guard let db else { return }
        let hook = WALHook(body)
        walHook = hook
        sqlite3_wal_hook(
            db,
            { context, _, _, frames in
                Unmanaged<WALHook>.fromOpaque(context!).takeUnretainedValue().body(Int(frames))
                return SQLITE_OK
            }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// Runs a checkpoint of this connection's WAL (`sqlite3_wal_checkpoint_v2`). A checkpoint that could not take
    /// the locks it needs (another checkpoint runs, or readers stayed past the busy timeout) is not an error: it
    /// reports `busy` with what it did copy.
    func checkpoint(_ mode: WALCheckpointMode) throws(StorageError) -> WALCheckpointResult {
        guard let db else { throw StorageError("\(path): connection is closed") }
        var log: Int32 = 0
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(db, "main", mode.sqliteMode, &log, &copied)
        guard rc == SQLITE_OK || rc == SQLITE_BUSY else {
            throw StorageError.sqlite(path: path, db: db, code: rc, context: "checkpoint (\(mode))")
        }
        return WALCheckpointResult(busy: rc == SQLITE_BUSY, walFrames: Int(log), copiedFrames: Int(copied))
    }

    /// How long a statement waits for a lock another connection holds before failing with SQLITE_BUSY.
    func setBusyTimeout(_ milliseconds: Int32) {
        if let db { sqlite3_busy_timeout(db, milliseconds) }
    }

    /// Whether no transaction is open (SQLite rolls back by itself after some errors, e.g. SQLITE_FULL).
    var isAutocommit: Bool { db.map { sqlite3_get_autocommit($0) != 0 } ?? true }

    /// `xWrite` calls SQLite made to this connection's WAL file and the `pwrite`s they became, and the same for the
    /// database file (a checkpoint's copies). Zeros when the connection does not gather writes (or has no WAL open).
    var gatheredWrites: GatheredWrites {
        var counters = csqlite_wal_counters()
        guard let db, csqlite_wal_counters_read(db, &counters) == SQLITE_OK else { return GatheredWrites() }
        return GatheredWrites(
            writes: counters.writes, pwrites: counters.flushes,
            checkpointWrites: counters.databaseWrites, checkpointPwrites: counters.databasePwrites,
            walBufferBytes: counters.walBufferBytes, databaseBufferBytes: counters.databaseBufferBytes)
    }

    /// Makes the next write of WAL frames to the OS (`.write`) or the next WAL sync (`.sync`) of this connection fail
    /// as a failing `pwrite`/`fsync` would (SQLITE_IOERR_WRITE / SQLITE_IOERR_FSYNC). For tests; the WAL must be open.
    func injectWALFault(_ fault: WALFault) throws(StorageError) {
        guard let db else { throw StorageError("\(path): connection is closed") }
        let rc = csqlite_wal_inject_fault(
            db, fault == .write ? Int32(CSQLITE_WAL_FAULT_WRITE) : Int32(CSQLITE_WAL_FAULT_SYNC))
        guard rc == SQLITE_OK else {
            throw StorageError.sqlite(path: path, db: db, code: rc, context: "injecting a WAL fault")
        }
    }

    /// Sub-journals (savepoints' undo copies of pages) the `sb-wal` VFS kept in memory so far, all connections together.
    static var subJournalsInMemory: Int64 { csqlite_wal_subjournals_in_memory() }

    /// Whether the `sb-wal` VFS registers on SQLite `version` (as `sqlite3_libversion_number()`): the versions it was
    /// tested on (wal_vfs.c, `SB_SQLITE_MIN_VERSION`).
    static func isTestedSQLiteVersion(_ version: Int32) -> Bool { csqlite_wal_version_supported(version) != 0 }

    /// The linked SQLite's version, as `sqlite3_libversion_number()` (3.40.1 is 3040001).
    static var sqliteVersionNumber: Int32 { sqlite3_libversion_number() }

    /// Sub-journals that outgrew the VFS's in-memory limit and moved to a temporary file, all connections together.
    static var subJournalsSpilled: Int64 { csqlite_wal_subjournals_spilled() }

    /// Rows changed by the last INSERT/UPDATE/DELETE.
    var changes: Int { db.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// Runs one or more statements without results (schema, pragmas that return nothing).
    func execute(_ sql: String) throws(StorageError) {
        guard let db else { throw StorageError("\(path): connection is closed") }
        var errorText: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &errorText)
        defer { sqlite3_free(errorText) }
        if rc != SQLITE_OK {
            let text = errorText.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            let context = sql.count > 80 ? String(sql.prefix(80)) + "…" : sql
            throw StorageError("\(path): \(text) (\(context))", sqliteCode: sqlite3_extended_errcode(db))
        }
    }

    /// Runs a cached statement that returns no rows (or whose rows are ignored).
    func run(_ sql: String, bind: (inout SQLiteStatement) -> Void = { _ in }) throws(StorageError) {
        var statement = try prepared(sql)
        defer { statement.reset() }
        bind(&statement)
        while try statement.step() {}
    }

    /// Runs a cached query and maps every row.
    func query<Row>(
        _ sql: String, bind: (inout SQLiteStatement) -> Void = { _ in },
        row: (SQLiteStatement) throws(StorageError) -> Row
    ) throws(StorageError) -> [Row] {
        var statement = try prepared(sql)
        defer { statement.reset() }
        bind(&statement)
        var rows: [Row] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// The first row of a cached query, if any.
    func queryFirst<Row>(
        _ sql: String, bind: (inout SQLiteStatement) -> Void = { _ in },
        row: (SQLiteStatement) throws(StorageError) -> Row
    ) throws(StorageError) -> Row? {
        var statement = try prepared(sql)
        defer { statement.reset() }
        bind(&statement)
        return try statement.step() ? try row(statement) : nil
    }

    var name: String { path }

    /// `BEGIN` (deferred): the read transaction takes its WAL snapshot at its first statement.
    func beginRead(unbounded: Bool) throws(StorageError) { try run("BEGIN") }
    func endRead() { try? run("COMMIT") }

    /// A taken key is the insert's constraint error (SQLITE_CONSTRAINT_PRIMARYKEY or _UNIQUE); the statement
    /// changed nothing and the transaction goes on.
    func insertUnlessTaken(_ template: String, bind: (inout SQLiteStatement) -> Void) throws(StorageError) -> Bool {
        do {
            try run(template, bind: bind)
            return true
        } catch  where error.sqliteCode == Self.primaryKeyViolation || error.sqliteCode == Self.uniqueViolation {
            return false
        }
    }

    /// SQLite has no statement timeout.
    func allowLongStatements() {}

    /// SQLITE_CONSTRAINT_PRIMARYKEY.
    static let primaryKeyViolation: Int32 = 1555
    /// SQLITE_CONSTRAINT_UNIQUE.
    static let uniqueViolation: Int32 = 2067

    /// The cached statement for `sql`, a template in `SQLiteDialect` (plain SQLite SQL passes through unchanged),
    /// keyed by the template so a hit costs one lookup.
    private func prepared(_ sql: String) throws(StorageError) -> SQLiteStatement {
        if let statement = cache[sql] { return statement }
        guard let db else { throw StorageError("\(path): connection is closed") }
        var handle: OpaquePointer?
        // PERSISTENT: these statements live as long as the connection, so SQLite may use longer-lived memory.
        let rc = sqlite3_prepare_v3(db, SQLiteDialect.sql(sql), -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard rc == SQLITE_OK, let handle else {
            throw StorageError.sqlite(path: path, db: db, code: rc, context: "preparing \(sql.prefix(120))")
        }
        let statement = SQLiteStatement(handle: handle, path: path)
        cache[sql] = statement
        return statement
    }
}

/// The checkpoints `SQLiteConnection.checkpoint` runs (SQLite's modes of the same names).
enum WALCheckpointMode: Sendable {
    /// Copies what no reader still needs; takes no lock that a writer or reader holds, never waits.
    case passive
    /// Waits (busy timeout) for the write lock and for readers, copies every frame, then waits until no reader uses
    /// the WAL, so the next write transaction starts it over from its beginning.
    case restart

    var sqliteMode: Int32 { self == .passive ? SQLITE_CHECKPOINT_PASSIVE : SQLITE_CHECKPOINT_RESTART }
}

/// What a checkpoint did: the WAL's length and how many of its frames are now in the database file.
struct WALCheckpointResult: Sendable, Equatable {
    /// The locks it needed were taken (another checkpoint, readers past the busy timeout): it did what it could.
    var busy: Bool
    var walFrames: Int
    var copiedFrames: Int
}

/// The closure behind `SQLiteConnection.onWALCommit`, boxed so SQLite's C hook can reach it.
private final class WALHook {
    let body: (Int) -> Void
    init(_ body: @escaping (Int) -> Void) { self.body = body }
}

/// Writes as SQLite made them and the `pwrite`s the `sb-wal` VFS turned them into (`SQLiteConnection.gatheredWrites`).
struct GatheredWrites: Sendable {
    var writes: Int64 = 0
    var pwrites: Int64 = 0
    var checkpointWrites: Int64 = 0
    var checkpointPwrites: Int64 = 0
    /// What the WAL file's and the database file's gather buffers hold now (freed after a checkpoint).
    var walBufferBytes: Int64 = 0
    var databaseBufferBytes: Int64 = 0
}

/// A failure `SQLiteConnection.injectWALFault` stands in for.
enum WALFault {
    /// A `pwrite` of WAL frames fails.
    case write
    /// An `fsync` of the WAL fails.
    case sync
}
