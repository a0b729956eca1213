/// Why an opening handshake was refused (server side) or why a server's answer was
/// unacceptable (client side). Value type, `Sendable`.
public struct WebSocketHandshakeError: Error, Sendable, Equatable {
    /// Status to answer with: 400, 403, 405 or 426 on the server side. For client-side
    /// errors: the server's status for "unexpected_status", otherwise 502 (bad upstream answer).
    public var status: Int
    /// Stable machine label, also a metrics label. Server side: "method_not_get",
    /// "http_version", "missing_host", "missing_upgrade", "missing_connection_upgrade",
    /// "missing_key", "invalid_key", "unsupported_version", "origin_not_allowed".
    /// Client side additionally: "unexpected_status", "invalid_accept".
    public var code: String
    /// Says which field is wrong, e.g. "Sec-WebSocket-Key must be base64 of 16 bytes".
    public var message: String
    /// Headers the refusal must carry: 405 has "Allow: GET", 426 has "Sec-WebSocket-Version: 13".
    public var extraHeaders: HTTPHeaders

    /// Creates an error.
    public init(status: Int, code: String, message: String, extraHeaders: HTTPHeaders = .init()) {
        self.status = status
        self.code = code
        self.message = message
        self.extraHeaders = extraHeaders
    }

    /// The refusal to send: `HTTPResponse.jsonError` with `extraHeaders`.
    public func response() -> HTTPResponse {
        HTTPResponse.jsonError(status: status, code: code, message: message, extraHeaders: extraHeaders)
    }
}
