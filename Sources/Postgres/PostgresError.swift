/// A failure reported by libpq or by the PostgreSQL server.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The server's (or libpq's) message, plus what the client was doing.
    public var message: String
    /// The five-character SQLSTATE the server sent (e.g. "23505" unique_violation); nil for client-side failures
    /// such as a refused connection.
    public var sqlstate: String?

    public init(_ message: String, sqlstate: String? = nil) {
        self.message = message
        self.sqlstate = sqlstate
    }

    /// Whether trying again later may succeed: the connection broke or the server is shutting down (class 08, 57P),
    /// or the transaction lost a serialization or deadlock race (40001, 40P01). Nothing of a failed transaction is
    /// kept, so a retry never applies half of it twice.
    public var isRetryable: Bool {
        guard let sqlstate else { return true }   // client-side: connection refused or lost
        return sqlstate.hasPrefix("08") || sqlstate.hasPrefix("57P") || sqlstate == "40001" || sqlstate == "40P01"
    }

    public var description: String { sqlstate.map { "PostgresError [\($0)]: \(message)" } ?? "PostgresError: \(message)" }

    /// SQLSTATE 23505.
    public static let uniqueViolation = "23505"
}
