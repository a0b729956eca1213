/// Builds frames (RFC 6455 §5.2) for either role. Stateless; safe from any thread.
///
/// `maskKey` is the 4 key bytes in wire order as a big-endian `UInt32` (see `WebSocketMasking`). Servers pass nil
/// (RFC 6455 §5.1: servers must not mask); clients pass a fresh random key per frame (RFC 6455 §5.3).
/// The encoder does not police the protocol (e.g. it will write a fragmented control frame if asked);
/// callers keep control payloads ≤ 125 bytes and FIN set (RFC 6455 §5.5).
public enum WebSocketFrameEncoder {
    /// Longest possible header: 2 fixed bytes + 8-byte extended length + 4-byte masking key (RFC 6455 §5.2).
    public static let maxHeaderSize = 14

    /// Writes a frame header to `destination`, which must have room for `maxHeaderSize` bytes, and returns its
    /// length (2–14). The length uses the shortest form: 7-bit up to 125, 16-bit up to 65535, else 64-bit
    /// (RFC 6455 §5.2). With a `maskKey` the MASK bit is set and the key follows the length; the payload itself
    /// is not touched — mask it with `WebSocketMasking.apply(key:to:offset:)`. `payloadLength` must be ≥ 0.
    @discardableResult
    public static func writeHeader(
        opcode: WebSocketOpcode, fin: Bool, rsv1: Bool, payloadLength: Int, maskKey: UInt32?,
        to destination: UnsafeMutableRawPointer
    ) -> Int {
        precondition(payloadLength >= 0, "payload length must be non-negative")
        var first = opcode.rawValue
        if fin { first |= 0x80 }   // FIN, RFC 6455 §5.2
        if rsv1 { first |= 0x40 }  // RSV1, used by permessage-deflate (RFC 7692 §6)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        destination.storeBytes(of: first, toByteOffset: 0, as: UInt8.self)
        var length: Int
        if payloadLength <= 125 {
            destination.storeBytes(of: maskBit | UInt8(payloadLength), toByteOffset: 1, as: UInt8.self)
            length = 2
        } else if payloadLength <= 0xFFFF {
            destination.storeBytes(of: maskBit | 126, toByteOffset: 1, as: UInt8.self)  // 16-bit length follows
            destination.storeBytes(of: UInt16(payloadLength).bigEndian, toByteOffset: 2, as: UInt16.self)
            length = 4
        } else {
            destination.storeBytes(of: maskBit | 127, toByteOffset: 1, as: UInt8.self)  // 64-bit length follows
            destination.storeBytes(of: UInt64(payloadLength).bigEndian, toByteOffset: 2, as: UInt64.self)
            length = 10
        }
        if let maskKey {
            destination.storeBytes(of: maskKey.bigEndian, toByteOffset: length, as: UInt32.self)
            length += 4
        }
        return length
    }

    /// One whole frame as a new array: header followed by the payload, masked when `maskKey` is non-nil
    /// (the caller's payload is not modified). Allocates; meant for control frames, clients and tests.
    public static func frame(
        opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, fin: Bool = true, rsv1: Bool = false,
        maskKey: UInt32? = nil
    ) -> [UInt8] {
        let payloadCount = payload.count
        return [UInt8](unsafeUninitializedCapacity: maxHeaderSize + payloadCount) { storage, initialized in
            let base = UnsafeMutableRawPointer(storage.baseAddress!)
            let headerLength = writeHeader(
                opcode: opcode, fin: fin, rsv1: rsv1, payloadLength: payloadCount, maskKey: maskKey, to: base)
            let body = UnsafeMutableRawBufferPointer(start: base + headerLength, count: payloadCount)
            if payloadCount > 0 {
                body.copyMemory(from: payload)
            }
            if let maskKey {
                WebSocketMasking.apply(key: maskKey, to: body)
            }
            initialized = headerLength + payloadCount
        }
    }

    /// One whole frame as a new array; see `frame(opcode:payload:fin:rsv1:maskKey:)` for the buffer version.
    public static func frame(
        opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true, rsv1: Bool = false, maskKey: UInt32? = nil
    ) -> [UInt8] {
        payload.withUnsafeBytes { frame(opcode: opcode, payload: $0, fin: fin, rsv1: rsv1, maskKey: maskKey) }
    }

    /// Payload of a close frame (RFC 6455 §5.5.1): the 2-byte big-endian `code` followed by `reason` as UTF-8,
    /// the reason cut at a code point boundary so the payload stays ≤ 125 bytes (the control frame limit).
    /// The code is written as given; pick one for which `WebSocketCloseCode.isValidOnWire` holds.
    public static func closePayload(code: UInt16, reason: String) -> [UInt8] {
        var payload: [UInt8] = [UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)]
        let utf8 = reason.utf8
        let maxReasonBytes = 125 - 2
        var end = utf8.count
        if end > maxReasonBytes {
            end = maxReasonBytes
            // Back up over continuation bytes (10xxxxxx) so no code point is split.
            let bytes = Array(utf8)
            while end > 0 && bytes[end] & 0xC0 == 0x80 {
                end -= 1
            }
            payload.append(contentsOf: bytes[0..<end])
        } else {
            payload.append(contentsOf: utf8)
        }
        return payload
    }
}
