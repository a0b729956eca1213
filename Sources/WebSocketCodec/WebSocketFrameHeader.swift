/// A parsed and validated frame header (RFC 6455 §5.2). Internal to the decoder.
struct WebSocketFrameHeader {
    var fin: Bool
    var rsv1: Bool
    var opcode: WebSocketOpcode
    /// Wire-order key as a big-endian UInt32 (see `WebSocketMasking`); nil when the MASK bit is clear.
    var maskKey: UInt32?
    var payloadLength: Int
    var headerLength: Int
}

extension WebSocketDecoder {
    /// Parses the frame header at `offset` and applies every rule that can be decided from the header alone.
    /// Returns nil if the header is incomplete. Rules are checked as soon as the bytes they need are present,
    /// so a bad first byte fails even when nothing else has arrived.
    func parseHeader(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(WebSocketProtocolError)
        -> WebSocketFrameHeader?
    {
        let available = buffer.count - offset
        guard available >= 1 else { return nil }
        let first = buffer[offset]
        // RFC 6455 §5.2: RSV2 (0x20) and RSV3 (0x10) are only legal with an extension defining them; we have none.
        if first & 0x30 != 0 {
            throw Self.failure(WebSocketCloseCode.protocolError, "reserved bits RSV2/RSV3 set")
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw Self.failure(WebSocketCloseCode.protocolError, "reserved opcode")  // RFC 6455 §5.2
        }
        let fin = first & 0x80 != 0
        let rsv1 = first & 0x40 != 0
        if opcode.isControl {
            // RFC 6455 §5.5: control frames must not be fragmented; RFC 7692 §6: RSV1 only on data frames.
            if !fin { throw Self.failure(WebSocketCloseCode.protocolError, "fragmented control frame") }
            if rsv1 { throw Self.failure(WebSocketCloseCode.protocolError, "RSV1 set on a control frame") }
        } else if opcode == .continuation {
            // RFC 6455 §5.4: a continuation needs a message in progress; RFC 7692 §6.1: RSV1 only on the first frame.
            if messageOpcode == nil {
                throw Self.failure(WebSocketCloseCode.protocolError, "continuation frame without a message")
            }
            if rsv1 { throw Self.failure(WebSocketCloseCode.protocolError, "RSV1 set on a continuation frame") }
        } else {
            // RFC 6455 §5.4: fragments of one message must not be interleaved with another data message.
            if messageOpcode != nil {
                throw Self.failure(WebSocketCloseCode.protocolError, "new data frame while a message is in progress")
            }
            if rsv1 && inflater == nil {
                throw Self.failure(WebSocketCloseCode.protocolError, "RSV1 set without a negotiated extension")
            }
        }

        guard available >= 2 else { return nil }
        let second = buffer[offset + 1]
        let masked = second & 0x80 != 0
        // RFC 6455 §5.1: clients must mask, servers must not.
        if masked != role.expectsMaskedFrames {
            throw Self.failure(
                WebSocketCloseCode.protocolError, masked ? "masked frame from server" : "unmasked frame from client")
        }
        let shortLength = Int(second & 0x7F)
        if opcode.isControl && shortLength > 125 {
            throw Self.failure(WebSocketCloseCode.protocolError, "control frame payload over 125 bytes")  // §5.5
        }

        var headerLength = 2
        if shortLength == 126 { headerLength += 2 } else if shortLength == 127 { headerLength += 8 }
        // RFC 6455 §5.2: the most significant bit of a 64-bit length must be 0; reject before the rest arrives.
        if shortLength == 127 && available >= 3 && buffer[offset + 2] & 0x80 != 0 {
            throw Self.failure(WebSocketCloseCode.protocolError, "64-bit payload length with the high bit set")
        }
        let lengthEnd = headerLength
        if masked { headerLength += 4 }
        guard available >= headerLength else { return nil }

        let base = UnsafeRawPointer(buffer.baseAddress!) + offset
        var wireLength: UInt64
        switch shortLength {
        case 126: wireLength = UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
        case 127: wireLength = UInt64(bigEndian: base.loadUnaligned(fromByteOffset: 2, as: UInt64.self))
        default: wireLength = UInt64(shortLength)
        }
        // Non-minimal length encodings are accepted on purpose (be liberal in what you accept).
        if wireLength > UInt64(limits.maxFrameSize) {
            throw Self.failure(WebSocketCloseCode.messageTooBig, "frame exceeds maxFrameSize")
        }
        let payloadLength = Int(truncatingIfNeeded: wireLength)
        if !opcode.isControl && payloadLength > limits.maxMessageSize - messageWireBytes {
            throw Self.failure(WebSocketCloseCode.messageTooBig, "message exceeds maxMessageSize")
        }
        let maskKey = masked ? UInt32(bigEndian: base.loadUnaligned(fromByteOffset: lengthEnd, as: UInt32.self)) : nil
        return WebSocketFrameHeader(
            fin: fin, rsv1: rsv1, opcode: opcode, maskKey: maskKey, payloadLength: payloadLength,
            headerLength: headerLength)
    }

    static func failure(_ code: UInt16, _ reason: String) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: code, reason: reason)
    }
}
