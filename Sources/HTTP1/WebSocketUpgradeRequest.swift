/// A validated upgrade request: what the handshake needs to answer and what the connection
/// negotiated. Value type, `Sendable`.
public struct WebSocketUpgradeRequest: Sendable, Equatable {
    /// The client's Sec-WebSocket-Key (base64 of 16 bytes).
    public var key: String
    /// The Origin header, if sent.
    public var origin: String?
    /// Subprotocols the client offered, in its order of preference.
    public var offeredSubprotocols: [String]
    /// Raw Sec-WebSocket-Extensions values, in order (negotiation is the deflate layer's job).
    public var extensionOffers: [String]
    /// The first offered subprotocol that the policy supports, or nil.
    public var selectedSubprotocol: String?

    /// Creates a request description (normally produced by `WebSocketHandshake.validate`).
    public init(key: String, origin: String? = nil, offeredSubprotocols: [String] = [], extensionOffers: [String] = [], selectedSubprotocol: String? = nil) {
        self.key = key
        self.origin = origin
        self.offeredSubprotocols = offeredSubprotocols
        self.extensionOffers = extensionOffers
        self.selectedSubprotocol = selectedSubprotocol
    }
}
