/// The seam the relational store is written over: one connection of one engine that runs cached statements, binds
/// values by position and reads rows by column. `SQLiteConnection` and `PostgresDatabase` are the two. Statements
/// are written once as templates (`SQLDialect`): each executor turns a template into its engine's SQL the first time
/// it sees it and keeps the prepared statement keyed by the template, so a shared statement costs what an engine's
/// own one did.
///
/// Same thread rules as the connections: one thread at a time, never an event loop.
protocol SQLExecutor: AnyObject {
    associatedtype Dialect: SQLDialect
    associatedtype Statement: SQLBindings
    associatedtype Row: SQLRow
    /// Names the database in error messages (a file path, or a PostgreSQL URL without its password).
    var name: String { get }
    /// Rows changed by the last INSERT/UPDATE/DELETE this executor ran.
    var changes: Int { get }
    /// Runs a statement whose rows (if any) are ignored.
    func run(_ template: String, bind: (inout Statement) -> Void) throws(StorageError)
    /// Runs a query and maps every row.
    func query<R>(_ template: String, bind: (inout Statement) -> Void,
                  row: (Row) throws(StorageError) -> R) throws(StorageError) -> [R]
    /// The first row of a query, if any.
    func queryFirst<R>(_ template: String, bind: (inout Statement) -> Void,
                       row: (Row) throws(StorageError) -> R) throws(StorageError) -> R?
    /// Opens a read-only transaction whose statements all see one snapshot; `unbounded` when it may outlast one
    /// statement's timeout (the whole snapshot). Closed by `endRead`.
    func beginRead(unbounded: Bool) throws(StorageError)
    func endRead()
    /// Runs an insert ending in `{ifAbsent:key}`; false when a row with that key was there already (nothing written).
    func insertUnlessTaken(_ template: String, bind: (inout Statement) -> Void) throws(StorageError) -> Bool
    /// Lets the rest of the write transaction run past the per-statement timeout (a prune scans the whole log).
    func allowLongStatements() throws(StorageError)
}

extension SQLExecutor {
    func run(_ template: String) throws(StorageError) { try run(template, bind: { _ in }) }

    func query<R>(_ template: String, row: (Row) throws(StorageError) -> R) throws(StorageError) -> [R] {
        try query(template, bind: { _ in }, row: row)
    }

    func queryFirst<R>(_ template: String, row: (Row) throws(StorageError) -> R) throws(StorageError) -> R? {
        try queryFirst(template, bind: { _ in }, row: row)
    }

    /// Runs `body` inside `beginRead`/`endRead`.
    func reading<R>(unbounded: Bool = false, _ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        try beginRead(unbounded: unbounded)
        defer { endRead() }
        return try body()
    }
}

/// Values bound to a statement's `?n` parameters (numbered from 1). Binding never throws: an engine that cannot take
/// a value reports it when the statement runs.
protocol SQLBindings {
    mutating func bind(_ index: Int32, _ value: Int64)
    mutating func bind(_ index: Int32, _ value: Int)
    mutating func bind(_ index: Int32, _ value: Bool)
    mutating func bind(_ index: Int32, _ value: Int64?)
    mutating func bind(_ index: Int32, _ value: String?)
    mutating func bind(_ index: Int32, _ value: [UInt8]?)
    /// Text that may hold a NUL character (a message's text): SQLite keeps it as text, PostgreSQL (whose text cannot
    /// hold NUL) as `bytea`. Read back with `SQLRow.unrestrictedText`.
    mutating func bindUnrestrictedText(_ index: Int32, _ value: String)
}

/// One result row, columns numbered from 0.
protocol SQLRow {
    func isNull(_ column: Int32) -> Bool
    func int64(_ column: Int32) -> Int64
    func optionalInt64(_ column: Int32) -> Int64?
    func bool(_ column: Int32) -> Bool
    func string(_ column: Int32) -> String
    func optionalString(_ column: Int32) -> String?
    func bytes(_ column: Int32) -> [UInt8]
    func optionalBytes(_ column: Int32) -> [UInt8]?
    /// A column written with `SQLBindings.bindUnrestrictedText`.
    func unrestrictedText(_ column: Int32) -> String
}

extension SQLRow {
    /// A column holding an enum's raw value (a state); any other text is an error naming the database and the value.
    func enumValue<Value: RawRepresentable>(_ column: Int32, as type: Value.Type, in database: String) throws(StorageError) -> Value
        where Value.RawValue == String {
        let text = string(column)
        guard let value = Value(rawValue: text) else {
            throw StorageError("\(database): unknown \(Value.self) \"\(text)\" in the database")
        }
        return value
    }
}
