/// What the decoder reports, one event per complete data message or control frame.
///
/// Ownership: every buffer is borrowed and only valid during the `onEvent` call; it may point into the
/// caller's read buffer (fast path) or into the decoder's reassembly buffer. Copy it to keep it.
public enum WebSocketEvent {
    /// A complete data message: `.text` (already validated as UTF-8) or `.binary`; reassembled from its
    /// fragments and, for RSV1 messages, inflated.
    case message(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer)
    /// A ping (RFC 6455 §5.5.2), ≤ 125 bytes, unmasked. The caller should answer with a pong echoing it.
    case ping(UnsafeRawBufferPointer)
    /// A pong (RFC 6455 §5.5.3), ≤ 125 bytes, unmasked.
    case pong(UnsafeRawBufferPointer)
    /// A validated close frame (RFC 6455 §5.5.1): `code` is nil when the payload was empty, otherwise a code
    /// for which `WebSocketCloseCode.isValidOnWire` holds; `reason` is valid UTF-8 (possibly empty).
    case close(code: UInt16?, reason: UnsafeRawBufferPointer)
}
