import CSQLite
import Gateway

/// A failure of a store. `message` names the database (file, or PostgreSQL URL without password) and carries the
/// engine's own error text (plus what the store was doing), so a log line alone is enough to find the cause.
public struct StorageError: Error, Sendable, CustomStringConvertible, RetryableStoreFailure {
    /// Human-readable cause: `"<path>: <sqlite error text> (<context>)"`.
    public var message: String
    /// The extended SQLite result code, when the error came from SQLite (e.g. 2067 = SQLITE_CONSTRAINT_UNIQUE).
    public var sqliteCode: Int32?
    /// The SQLSTATE, when the error came from the PostgreSQL server (e.g. "23505" unique_violation).
    public var sqlstate: String?
    /// Whether a retry may succeed (PostgreSQL: connection lost, server restarting, serialization or deadlock loss;
    /// nothing of the failed transaction was kept). False for SQLite errors.
    public var isRetryable = false
    /// Set when a decision lost (another writer decided first): the store reports this, not the `StorageError`.
    public var conflict: StoreConflict?

    /// Creates an error with a ready-made message.
    public init(_ message: String, sqliteCode: Int32? = nil) {
        self.message = message
        self.sqliteCode = sqliteCode
    }

    /// The same error with `prefix` in front of its message.
    func prefixed(_ prefix: String) -> StorageError {
        var copy = self
        copy.message = prefix + message
        return copy
    }

    /// The same error with ` [label]` after its message (what the store was writing).
    func labelled(_ label: String) -> StorageError {
        var copy = self
        copy.message += " [\(label)]"
        return copy
    }

    /// A decision that lost, as the writer reports it for its batch.
    init(conflict: StoreConflict) {
        self.message = "a decision lost to another writer: \(conflict)"
        self.conflict = conflict
    }

    /// What the store's callers see: the conflict itself when a decision lost, else this error.
    var reported: Error { conflict ?? self }

    /// `"StorageError: "` followed by the message.
    public var description: String { "StorageError: \(message)" }

    /// An error from SQLite on `db`, read from the connection's last error (valid only right after the failing call).
    static func sqlite(path: String, db: OpaquePointer?, code: Int32, context: String) -> StorageError {
        let text: String
        if let db, let cText = sqlite3_errmsg(db) {
            text = String(cString: cText)
        } else {
            text = String(cString: sqlite3_errstr(code))
        }
        let extended = db.map { sqlite3_extended_errcode($0) } ?? code
        return StorageError("\(path): \(text) (\(context))", sqliteCode: extended)
    }
}
