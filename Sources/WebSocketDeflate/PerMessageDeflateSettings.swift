/// Server policy for permessage-deflate, taken from configuration. A plain value, safe to share.
/// Out-of-range values are clamped where they are used, never trapped on.
public struct PerMessageDeflateSettings: Sendable, Equatable {
    /// When false, `PerMessageDeflateNegotiation.negotiate` declines every offer.
    public var enabled: Bool = true
    /// The largest window the server compresses with, 9...15: bounds deflate memory
    /// (about `1 << (bits + 2)` bytes plus the hash table). A client's smaller `server_max_window_bits` wins.
    public var maxServerWindowBits: Int = 15
    /// zlib memLevel 1...9: deflate hash table of `1 << (memLevel + 9)` bytes.
    public var memLevel: Int = 8
    /// zlib compression level 0...9.
    public var compressionLevel: Int = 6
    /// Send `server_no_context_takeover` even if the client did not ask: the deflater then holds no zlib
    /// state between messages (RFC 7692 §7.1.1.1 lets the server add it).
    public var serverNoContextTakeover: Bool = false
    /// The largest client window the server asks for when the client offers `client_max_window_bits`,
    /// 8...15; bounds inflate memory. Without that parameter in the offer the server cannot limit the
    /// client and inflates with 15 (RFC 7692 §7.1.2.2).
    public var maxClientWindowBits: Int = 15
    /// Send `client_no_context_takeover` even if the client did not offer it (RFC 7692 §7.1.1.2 lets the
    /// server add it): the inflater then frees its zlib state after every message.
    public var clientNoContextTakeover: Bool = false

    /// Creates settings; every parameter has the documented default.
    public init(
        enabled: Bool = true,
        maxServerWindowBits: Int = 15,
        memLevel: Int = 8,
        compressionLevel: Int = 6,
        serverNoContextTakeover: Bool = false,
        maxClientWindowBits: Int = 15,
        clientNoContextTakeover: Bool = false
    ) {
        self.enabled = enabled
        self.maxServerWindowBits = maxServerWindowBits
        self.memLevel = memLevel
        self.compressionLevel = compressionLevel
        self.serverNoContextTakeover = serverNoContextTakeover
        self.maxClientWindowBits = maxClientWindowBits
        self.clientNoContextTakeover = clientNoContextTakeover
    }
}

/// A server response that does not match what the client offered; the client must fail the
/// WebSocket connection (RFC 7692 §5.1, RFC 6455 §9.1).
public struct PerMessageDeflateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, for logs.
    public var message: String

    /// Creates an error with a human-readable `message`.
    public init(message: String) {
        self.message = message
    }

    public var description: String { "permessage-deflate negotiation failed: \(message)" }
}
