/// A frame opcode (RFC 6455 §5.2; registry §11.8). The raw value is the 4-bit wire value.
/// Values 0x3–0x7 and 0xB–0xF are reserved: they have no case, so `WebSocketOpcode(rawValue:)`
/// returns nil for them and the decoder fails the connection with 1002.
public enum WebSocketOpcode: UInt8, Sendable {
    /// Continuation of a fragmented data message (RFC 6455 §5.4).
    case continuation = 0x0
    /// First frame of a text message; payload is UTF-8 (RFC 6455 §5.6).
    case text = 0x1
    /// First frame of a binary message (RFC 6455 §5.6).
    case binary = 0x2
    /// Close control frame (RFC 6455 §5.5.1).
    case close = 0x8
    /// Ping control frame (RFC 6455 §5.5.2).
    case ping = 0x9
    /// Pong control frame (RFC 6455 §5.5.3).
    case pong = 0xA

    /// True for close, ping and pong: control opcodes have the most significant opcode bit set
    /// (RFC 6455 §5.5), may not be fragmented and carry at most 125 payload bytes.
    @inlinable
    public var isControl: Bool { rawValue & 0x8 != 0 }
}
