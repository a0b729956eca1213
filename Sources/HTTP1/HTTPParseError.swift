/// A request the server must refuse: the status to answer and a short human-readable message.
///
/// Once a parser has thrown one of these its framing is lost: the server should answer with
/// `status` (e.g. via `HTTPResponse.jsonError`) and close the connection. The parser keeps
/// rethrowing the same error until `reset()`.
public struct HTTPParseError: Error, Sendable, Equatable {
    /// HTTP status to answer with: 400, 413, 414, 431, 501 or 505.
    public var status: Int
    /// What was wrong, safe to echo to the peer (never contains peer bytes).
    public var message: String

    /// Creates an error with the status to answer and a short explanation.
    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    static func badRequest(_ message: String) -> HTTPParseError {
        HTTPParseError(status: 400, message: message)
    }
}
