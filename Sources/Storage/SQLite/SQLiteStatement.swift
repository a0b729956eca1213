import CSQLite

/// A prepared statement owned by a `SQLiteConnection`'s cache. Binding never throws: the first failed bind is
/// remembered and reported by `step()`, so call sites stay flat (a value over SQLite's 1 GB limit fails the
/// statement with SQLITE_TOOBIG rather than being cut). Parameter and column indexes follow SQLite
/// (parameters from 1, columns from 0). Same thread rules as its connection.
struct SQLiteStatement: SQLBindings, SQLRow {
    let handle: OpaquePointer
    let path: String
    private var bindFailure: Int32 = SQLITE_OK

    init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    // MARK: Binding

    mutating func bind(_ index: Int32, _ value: Int64) {
        record(sqlite3_bind_int64(handle, index, value))
    }

    mutating func bind(_ index: Int32, _ value: Int) {
        bind(index, Int64(value))
    }

    mutating func bind(_ index: Int32, _ value: Bool) {
        bind(index, Int64(value ? 1 : 0))
    }

    mutating func bind(_ index: Int32, _ value: Int64?) {
        if let value { bind(index, value) } else { record(sqlite3_bind_null(handle, index)) }
    }

    mutating func bind(_ index: Int32, _ value: String?) {
        guard var value else { return record(sqlite3_bind_null(handle, index)) }
        // Length-delimited, so embedded NULs survive; an empty buffer may have no base address, which SQLite
        // would store as NULL, hence the literal "".
        let rc = value.withUTF8 { utf8 in
            utf8.isEmpty ? sqlite3_bind_text(handle, index, "", 0, CSQLITE_TRANSIENT)
                : sqlite3_bind_text64(handle, index, utf8.baseAddress, UInt64(utf8.count), CSQLITE_TRANSIENT,
                                      UInt8(SQLITE_UTF8))
        }
        record(rc)
    }

    mutating func bind(_ index: Int32, _ value: [UInt8]?) {
        guard let value else { return record(sqlite3_bind_null(handle, index)) }
        let rc = value.withUnsafeBytes { bytes in
            // A zero-length blob, not NULL: the column type must round-trip.
            bytes.isEmpty ? sqlite3_bind_zeroblob(handle, index, 0)
                : sqlite3_bind_blob64(handle, index, bytes.baseAddress, UInt64(bytes.count), CSQLITE_TRANSIENT)
        }
        record(rc)
    }

    /// SQLite text is length-delimited, so a NUL survives in a plain text value.
    mutating func bindUnrestrictedText(_ index: Int32, _ value: String) { bind(index, value) }

    private mutating func record(_ rc: Int32) {
        if rc != SQLITE_OK && bindFailure == SQLITE_OK { bindFailure = rc }
    }

    // MARK: Stepping

    /// Advances the statement: `true` when a row is ready, `false` when done.
    func step() throws(StorageError) -> Bool {
        let db = sqlite3_db_handle(handle)
        if bindFailure != SQLITE_OK {
            throw StorageError.sqlite(path: path, db: nil, code: bindFailure, context: "binding \(sqlText)")
        }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw StorageError.sqlite(path: path, db: db, code: rc, context: sqlText)
        }
    }

    /// Rewinds for the next use and drops the bound values (a reader must not keep its WAL snapshot pinned).
    mutating func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        bindFailure = SQLITE_OK
    }

    var sqlText: String {
        guard let text = sqlite3_sql(handle) else { return "?" }
        let sql = String(cString: text)
        return sql.count > 120 ? String(sql.prefix(120)) + "…" : sql
    }

    // MARK: Columns

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    func bool(_ column: Int32) -> Bool { int64(column) != 0 }

    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }

    func unrestrictedText(_ column: Int32) -> String { string(column) }

    func bytes(_ column: Int32) -> [UInt8] {
        guard let blob = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: blob, count: count))
    }

    func optionalBytes(_ column: Int32) -> [UInt8]? { isNull(column) ? nil : bytes(column) }
}
