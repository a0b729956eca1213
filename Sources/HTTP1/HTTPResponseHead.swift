/// The status line and headers of a parsed response (client side).
public struct HTTPResponseHead: Sendable, Equatable {
    /// Three-digit status code.
    public var status: Int
    /// Reason phrase as received (may be empty).
    public var reason: String
    /// Header fields in arrival order.
    public var headers: HTTPHeaders

    /// Creates a response head.
    public init(status: Int, reason: String = "", headers: HTTPHeaders = .init()) {
        self.status = status
        self.reason = reason
        self.headers = headers
    }
}
