import Postgres

/// `PostgresDatabase` as the shared store's `SQLExecutor`: templates become `PostgresDialect` SQL once (kept by
/// template), values are collected by position and sent with the statement (bytes in binary format).
extension PostgresDatabase: SQLExecutor {
    typealias Dialect = PostgresDialect

    func run(_ template: String, bind: (inout PostgresBindings) -> Void) throws(StorageError) {
        var bindings = PostgresBindings()
        bind(&bindings)
        try query(sql(template), bindings.values)
    }

    func query<R>(_ template: String, bind: (inout PostgresBindings) -> Void,
                  row: (PostgresRow) throws(StorageError) -> R) throws(StorageError) -> [R] {
        var bindings = PostgresBindings()
        bind(&bindings)
        return try query(sql(template), bindings.values).map(row)
    }

    func queryFirst<R>(_ template: String, bind: (inout PostgresBindings) -> Void,
                       row: (PostgresRow) throws(StorageError) -> R) throws(StorageError) -> R? {
        var bindings = PostgresBindings()
        bind(&bindings)
        return try query(sql(template), bindings.values).first.map(row)
    }

    /// REPEATABLE READ: every statement of the transaction sees the snapshot its first one took. An `unbounded` one
    /// (reading a whole large database) may take longer than one command's statement timeout.
    func beginRead(unbounded: Bool) throws(StorageError) {
        try execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        if unbounded { try execute("SET LOCAL statement_timeout = 0") }
    }

    func endRead() { try? execute("COMMIT") }

    func insertUnlessTaken(_ template: String, bind: (inout PostgresBindings) -> Void) throws(StorageError) -> Bool {
        try run(template, bind: bind)
        return changes > 0
    }

    func allowLongStatements() throws(StorageError) { try execute("SET LOCAL statement_timeout = 0") }
}

/// The values of one statement's `$n` parameters, in order.
struct PostgresBindings: SQLBindings {
    private(set) var values: [(any PostgresBindable)?] = []

    private mutating func set(_ index: Int32, _ value: (any PostgresBindable)?) {
        let slot = Int(index) - 1
        while values.count <= slot { values.append(nil) }
        values[slot] = value
    }

    mutating func bind(_ index: Int32, _ value: Int64) { set(index, value) }
    mutating func bind(_ index: Int32, _ value: Int) { set(index, value) }
    mutating func bind(_ index: Int32, _ value: Bool) { set(index, value) }
    mutating func bind(_ index: Int32, _ value: Int64?) { set(index, value) }
    mutating func bind(_ index: Int32, _ value: String?) { set(index, value) }
    mutating func bind(_ index: Int32, _ value: [UInt8]?) { set(index, value) }
    /// PostgreSQL text cannot hold NUL: such text is stored as `bytea` (the messages' `text` column).
    mutating func bindUnrestrictedText(_ index: Int32, _ value: String) { set(index, Array(value.utf8)) }
}

extension PostgresRow: SQLRow {
    func isNull(_ column: Int32) -> Bool { isNull(Int(column)) }
    func int64(_ column: Int32) -> Int64 { int64(Int(column)) }
    func optionalInt64(_ column: Int32) -> Int64? { optionalInt64(Int(column)) }
    func bool(_ column: Int32) -> Bool { bool(Int(column)) }
    func string(_ column: Int32) -> String { string(Int(column)) }
    func optionalString(_ column: Int32) -> String? { optionalString(Int(column)) }
    func bytes(_ column: Int32) -> [UInt8] { bytes(Int(column)) }
    func optionalBytes(_ column: Int32) -> [UInt8]? { optionalBytes(Int(column)) }
    func unrestrictedText(_ column: Int32) -> String { String(decoding: bytes(Int(column)), as: UTF8.self) }
}
