/// Size limits the decoder enforces, each failing the connection with 1009 (message too big, RFC 6455 §7.4.1).
/// - `maxFrameSize`: the most payload bytes one frame may announce in its header (checked before any payload
///   is buffered).
/// - `maxMessageSize`: the most payload bytes one whole (reassembled) data message may hold. Uncompressed
///   messages are checked against the frame headers as they arrive; compressed (RSV1) messages are checked
///   on the wire bytes the same way and, in addition, the inflated size is capped by passing this value as
///   the inflater's `limit`.
/// Both must be ≥ 0; values below 125 also cap control frames (which RFC 6455 §5.5 caps at 125 anyway).
public struct WebSocketLimits: Sendable, Equatable {
    /// Most payload bytes a single frame may carry.
    public var maxFrameSize: Int
    /// Most payload bytes a whole data message may carry (after reassembly and inflation).
    public var maxMessageSize: Int

    /// Creates limits; both values must be non-negative.
    public init(maxFrameSize: Int, maxMessageSize: Int) {
        precondition(maxFrameSize >= 0 && maxMessageSize >= 0, "WebSocketLimits must be non-negative")
        self.maxFrameSize = maxFrameSize
        self.maxMessageSize = maxMessageSize
    }
}
