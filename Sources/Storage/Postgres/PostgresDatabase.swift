import Postgres

/// A `PostgresConnection` whose errors come out as `StorageError`s naming the database, reconnecting once the link
/// broke (the next use after a lost connection tries again instead of failing forever). Same thread rules as the
/// connection: one thread at a time, never an event loop.
final class PostgresDatabase {
    let name: String
    private let options: PostgresStoreOptions
    private var connection: PostgresConnection?
    /// Templates (`SQLExecutor`) already turned into PostgreSQL's SQL.
    private var translated: [String: String] = [:]
    /// Rows changed by the last statement sent through `query`.
    private(set) var changes = 0

    init(options: PostgresStoreOptions) throws(StorageError) {
        self.options = options
        name = options.redactedURL
        connection = try connect()
    }

    private func connect() throws(StorageError) -> PostgresConnection {
        do {
            return try PostgresConnection(url: options.url, password: options.password,
                                          connectTimeoutSeconds: options.connectTimeoutSeconds,
                                          statementTimeoutMs: options.statementTimeoutMs, applicationName: options.applicationName)
        } catch {
            throw storageError(error)
        }
    }

    /// The open connection, reconnecting when the previous one broke outside a transaction (inside one, the caller
    /// sees the error: its transaction is gone).
    private func live() throws(StorageError) -> PostgresConnection {
        if let connection, connection.isConnected { return connection }
        guard connection != nil else { throw StorageError("\(name): store is closed") }
        connection?.close()
        let fresh = try connect()
        connection = fresh
        return fresh
    }

    func close() {
        connection?.close()
        connection = nil
    }

    var isAutocommit: Bool {
        guard let connection else { return true }
        switch connection.transactionStatus {
        case .idle, .unknown: return true
        case .inTransaction, .failed: return false
        }
    }

    func execute(_ sql: String) throws(StorageError) {
        try onLiveConnection { connection throws(PostgresError) in try connection.execute(sql) }
    }

    @discardableResult
    func query(_ sql: String, _ parameters: [(any PostgresBindable)?] = []) throws(StorageError) -> PostgresRows {
        let rows = try onLiveConnection { connection throws(PostgresError) in try connection.query(sql, parameters) }
        changes = rows.affected
        return rows
    }

    /// The PostgreSQL text of a shared statement's template, translated once.
    func sql(_ template: String) -> String {
        if let sql = translated[template] { return sql }
        let sql = PostgresDialect.sql(template)
        translated[template] = sql
        return sql
    }

    /// Runs `body`; when it fails because a connection that was idle (no transaction open) turns out broken — the
    /// server restarted, or a proxy dropped it — reconnects and runs it once more. Safe because outside a transaction
    /// this store sends only BEGIN and reads; inside one the caller sees the error (its transaction is gone).
    private func onLiveConnection<R>(_ body: (PostgresConnection) throws(PostgresError) -> R) throws(StorageError) -> R {
        let connection = try live()
        let wasIdle = connection.transactionStatus == .idle
        do {
            return try body(connection)
        } catch where wasIdle && !connection.isConnected {
            let fresh = try live()
            do { return try body(fresh) } catch { throw storageError(error) }
        } catch {
            throw storageError(error)
        }
    }

    /// The first row's first column as an integer (nil for no row or NULL).
    func int64(_ sql: String, _ parameters: [(any PostgresBindable)?] = []) throws(StorageError) -> Int64? {
        try query(sql, parameters).first?.optionalInt64(0)
    }

    private func storageError(_ error: PostgresError) -> StorageError {
        var converted = StorageError("\(name): \(error.message)")
        converted.sqlstate = error.sqlstate
        converted.isRetryable = error.isRetryable
        return converted
    }
}
