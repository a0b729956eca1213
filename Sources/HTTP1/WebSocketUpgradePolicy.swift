/// What the server accepts in an RFC 6455 §4.2 opening handshake. Value type, `Sendable`.
public struct WebSocketUpgradePolicy: Sendable {
    /// Origins allowed to connect; empty = any origin. Entries are compared
    /// case-insensitively (ASCII) to the full Origin value, e.g. "https://app.example.com";
    /// "*" allows any. A request without an Origin header (non-browser client) is always allowed.
    public var allowedOrigins: [String]
    /// Subprotocols the server speaks; the first one the client offers that is in this
    /// list is selected (compared exactly: subprotocol names are case-sensitive, RFC 6455 §4.1).
    public var supportedSubprotocols: [String]

    /// Creates a policy; the defaults accept any origin and select no subprotocol.
    public init(allowedOrigins: [String] = [], supportedSubprotocols: [String] = []) {
        self.allowedOrigins = allowedOrigins
        self.supportedSubprotocols = supportedSubprotocols
    }

    /// Whether `origin` passes the allow-list.
    public func allows(origin: String) -> Bool {
        allowedOrigins.isEmpty || allowedOrigins.contains { $0 == "*" || ASCII.equalsIgnoringCase($0, origin) }
    }
}
