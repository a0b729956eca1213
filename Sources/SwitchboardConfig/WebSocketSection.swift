/// The `[websocket]` section: RFC 6455 limits and timers for upgraded connections.
///
/// `maxFrameBytes` is deliberately not required to be ≤ `maxMessageBytes`: each limit is checked
/// on its own, so a larger frame limit simply never triggers before the message limit.
public struct WebSocketSection: Sendable, Equatable {
    /// `websocket.max_message_bytes`: larger (reassembled, decompressed) messages close the
    /// connection with 1009 (RFC 6455 §7.4.1); 125...1073741824.
    public var maxMessageBytes: Int = 65536
    /// `websocket.max_frame_bytes`: larger frame payloads close with 1009; 125...1073741824.
    public var maxFrameBytes: Int = 65536
    /// `websocket.handshake_timeout_ms`: from accept to the end of the upgrade request (slow-loris
    /// guard); 100...600000.
    public var handshakeTimeoutMs: Int = 10000
    /// `websocket.ping_interval_ms`: idle clients get a ping after this; 0 disables; 0...3600000.
    public var pingIntervalMs: Int = 30000
    /// `websocket.pong_timeout_ms`: no pong (or any traffic) this long after a ping closes the
    /// connection; 100...3600000.
    public var pongTimeoutMs: Int = 20000
    /// `websocket.close_timeout_ms`: after sending close, how long to wait for the peer's close
    /// before dropping TCP (RFC 6455 §7.1.1); 0...600000.
    public var closeTimeoutMs: Int = 5000
    /// `websocket.max_outbound_bytes`: per-connection queued bytes; more closes the slow consumer
    /// with 1013 (try again later, RFC 6455 §7.4.1 / IANA); 1024...1073741824.
    public var maxOutboundBytes: Int = 4_194_304
    /// `websocket.allowed_origins`: exact `Origin` values accepted; empty = any origin.
    public var allowedOrigins: [String] = []
    /// `websocket.subprotocols`: `Sec-WebSocket-Protocol` values the server may select, in order
    /// of preference (RFC 6455 §4.2.2); each an HTTP token.
    public var subprotocols: [String] = []
    /// `[websocket.compression]`: permessage-deflate.
    public var compression = CompressionSection()

    /// The embedded defaults.
    public init() {}
}
