import CPostgres

/// A value bound to a `$n` parameter. Text, integers and booleans go in libpq's text format; bytes go in binary
/// format (no escaping, any byte value). nil binds SQL NULL. Text with a NUL character is refused (SQLSTATE 22021):
/// store such values as bytes.
public enum PostgresValue: Sendable, Equatable {
    case text(String)
    case int(Int64)
    case bool(Bool)
    case bytes([UInt8])
}

/// Lets call sites bind Swift values directly (`[user, offset, payload]`).
public protocol PostgresBindable { var postgresValue: PostgresValue { get } }
extension String: PostgresBindable { public var postgresValue: PostgresValue { .text(self) } }
extension Int64: PostgresBindable { public var postgresValue: PostgresValue { .int(self) } }
extension Int: PostgresBindable { public var postgresValue: PostgresValue { .int(Int64(self)) } }
extension Bool: PostgresBindable { public var postgresValue: PostgresValue { .bool(self) } }
extension Array: PostgresBindable where Element == UInt8 { public var postgresValue: PostgresValue { .bytes(self) } }

/// One blocking libpq connection with a cache of prepared statements.
///
/// Every call blocks the calling thread until the server answered: use it only on a thread of its own (the store's
/// writer thread, or a reader holding the store's read lock), never on an event loop. Not thread-safe: one thread
/// at a time. Results come back in text format and are copied out before the call returns.
public final class PostgresConnection {
    private var conn: OpaquePointer?
    private var prepared: [String: String] = [:]   // SQL text -> statement name

    /// Connects. `url` is a libpq connection string or URI (`postgresql://user@host:5432/db`, or
    /// `host=/run/postgresql dbname=app`); `password`, when given, overrides one in the URL (read from a file or the
    /// environment by the caller, never from the configuration file itself). `connectTimeoutSeconds` bounds the
    /// connect (libpq's minimum is 2); `statementTimeoutMs` > 0 makes the server cancel any longer statement.
    public init(url: String, password: String? = nil, connectTimeoutSeconds: Int = 5, statementTimeoutMs: Int = 0,
                applicationName: String = "switchboard") throws(PostgresError) {
        var keywords = ["dbname", "connect_timeout", "application_name"]
        var values = [url, String(max(2, connectTimeoutSeconds)), applicationName]
        if let password { keywords.append("password"); values.append(password) }
        if statementTimeoutMs > 0 { keywords.append("options"); values.append("-c statement_timeout=\(statementTimeoutMs)") }
        let handle = Self.withCStrings(keywords) { k in
            Self.withCStrings(values) { v in PQconnectdbParams(k, v, 1) }   // 1: expand `dbname` as a URL
        }
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let text = handle.map { Self.errorText($0) } ?? "out of memory"
            PQfinish(handle)
            throw PostgresError("cannot connect to PostgreSQL: \(text)")
        }
        // libpq prints server notices ("relation … already exists, skipping") to stderr by default: not a log line.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        conn = handle
    }

    deinit { close() }

    /// Closes the connection. Idempotent.
    public func close() {
        if let conn { PQfinish(conn) }
        conn = nil
        prepared.removeAll()
    }

    /// Whether the connection is still usable (false once closed or after the server went away).
    public var isConnected: Bool { conn.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Where the connection stands with respect to transactions.
    public enum TransactionStatus: Sendable { case idle, inTransaction, failed, unknown }

    /// `.failed` after an error inside a transaction: only ROLLBACK (or ROLLBACK TO a savepoint) is accepted.
    public var transactionStatus: TransactionStatus {
        guard let conn else { return .unknown }
        switch PQtransactionStatus(conn) {
        case PQTRANS_IDLE: return .idle
        case PQTRANS_INTRANS, PQTRANS_ACTIVE: return .inTransaction
        case PQTRANS_INERROR: return .failed
        default: return .unknown
        }
    }

    /// Runs one or more statements without parameters (schema, BEGIN/COMMIT), in the simple query protocol.
    public func execute(_ sql: String) throws(PostgresError) {
        guard let conn else { throw PostgresError("the connection is closed") }
        let result = PQexec(conn, sql)
        defer { PQclear(result) }
        try check(result, sql)
    }

    /// Runs one statement with `$1…$n` parameters (prepared once per connection, then reused) and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [(any PostgresBindable)?] = []) throws(PostgresError) -> PostgresRows {
        guard let conn else { throw PostgresError("the connection is closed") }
        let name = try statementName(sql, conn)
        let values = parameters.map { $0?.postgresValue }
        for (index, value) in values.enumerated() {
            // A C string ends at a NUL, so the text would be cut silently; PostgreSQL text cannot hold one anyway.
            if case .text(let text) = value, text.utf8.contains(0) {
                throw PostgresError("parameter $\(index + 1) contains a NUL character, which PostgreSQL text cannot store",
                                    sqlstate: "22021")   // character_not_in_repertoire
            }
        }
        let buffers: [[CChar]?] = values.map { value in
            switch value {
            case nil: return nil
            case .text(let s): return Array(s.utf8CString)
            case .int(let n): return Array(String(n).utf8CString)
            case .bool(let b): return Array((b ? "t" : "f").utf8CString)
            case .bytes(let bytes): return bytes.map { CChar(bitPattern: $0) }
            }
        }
        let lengths = values.map { value -> Int32 in if case .bytes(let b) = value { return Int32(b.count) } else { return 0 } }
        let formats = values.map { value -> Int32 in if case .bytes = value { return 1 } else { return 0 } }
        let result = Self.withPointers(buffers) { pointers in
            PQexecPrepared(conn, name, Int32(values.count), pointers, lengths, formats, 0)
        }
        defer { PQclear(result) }
        try check(result, sql)
        return PostgresRows(result!)
    }

    private func statementName(_ sql: String, _ conn: OpaquePointer) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count + 1)"
        let result = PQprepare(conn, name, sql, 0, nil)
        defer { PQclear(result) }
        try check(result, sql)
        prepared[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?, _ sql: String) throws(PostgresError) {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY else { return }
        let sqlstate = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        var text = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }.map { String(cString: $0) }
            ?? conn.map(Self.errorText) ?? "no connection"
        if let detail = result.flatMap({ PQresultErrorField($0, Int32(UInt8(ascii: "D"))) }) { text += " (\(String(cString: detail)))" }
        let context = sql.count > 100 ? String(sql.prefix(100)) + "…" : sql
        throw PostgresError("\(text) [\(context.split(whereSeparator: \.isNewline).joined(separator: " "))]", sqlstate: sqlstate)
    }

    private static func errorText(_ conn: OpaquePointer) -> String {
        String(cString: PQerrorMessage(conn)).trimmingSuffix { $0 == "\n" || $0 == " " }
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        withPointers(strings.map { Array($0.utf8CString) } + [nil], body)
    }

    private static func withPointers<R>(_ buffers: [[CChar]?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        // Copies with stable addresses for the duration of the call.
        let copies: [UnsafeMutablePointer<CChar>?] = buffers.map { buffer in
            guard let buffer else { return nil }
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, buffer.count))
            copy.initialize(from: buffer, count: buffer.count)
            return copy
        }
        defer { copies.forEach { $0?.deallocate() } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var s = Substring(self)
        while let last = s.last, predicate(last) { s = s.dropLast() }
        return String(s)
    }
}

extension PostgresConnection {
    /// Runs `body` between BEGIN and COMMIT; rolls back and rethrows when it throws.
    public func transaction<R>(_ body: () throws(PostgresError) -> R) throws(PostgresError) -> R {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if transactionStatus != .idle { try? execute("ROLLBACK") }
            throw error
        }
    }
}
