/// XOR masking of frame payloads (RFC 6455 §5.3).
///
/// Key byte order, used consistently by `apply`, `WebSocketFrameEncoder` and `WebSocketDecoder`: the masking key
/// is a `UInt32` whose big-endian bytes are the 4 key bytes in wire order, i.e. the wire bytes `k0 k1 k2 k3`
/// are the key `UInt32(k0) << 24 | UInt32(k1) << 16 | UInt32(k2) << 8 | UInt32(k3)`.
public enum WebSocketMasking {
    /// XORs `buffer` in place with `key`; payload byte `i` of the frame uses key byte `i % 4` (RFC 6455 §5.3).
    /// - `offset`: how many payload bytes of the same frame were masked before this buffer, so a payload can be
    ///   (un)masked in pieces as it streams in. Must be ≥ 0.
    /// Works 8 bytes at a time; no allocation. Applying it twice with the same key and offset restores the data.
    public static func apply(key: UInt32, to buffer: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        precondition(offset >= 0, "masking offset must be non-negative")
        // Rotate so the key byte for the first byte here comes first; the smart shift yields 0 when
        // `rotation` is 0, which keeps the rotation correct without a branch.
        let rotation = UInt32((offset & 3) &* 8)
        let rotated = (key << rotation) | (key >> (32 &- rotation))
        // `.bigEndian` gives a value whose in-memory bytes are the key bytes in wire order on any host;
        // doubling it makes an 8-byte pattern that stays in phase because 8 is a multiple of 4.
        let word = UInt64(rotated.bigEndian)
        let mask64 = word | (word << 32)

        let count = buffer.count
        var index = 0
        while index &+ 32 <= count {
            xor8(base, index, mask64)
            xor8(base, index &+ 8, mask64)
            xor8(base, index &+ 16, mask64)
            xor8(base, index &+ 24, mask64)
            index &+= 32
        }
        while index &+ 8 <= count {
            xor8(base, index, mask64)
            index &+= 8
        }
        if index < count {
            // `index` is a multiple of 8, so the tail's key phase equals the pattern's byte order.
            withUnsafeBytes(of: mask64) { maskBytes in
                var byte = 0
                while index < count {
                    let value = base.load(fromByteOffset: index, as: UInt8.self) ^ maskBytes[byte]
                    base.storeBytes(of: value, toByteOffset: index, as: UInt8.self)
                    index &+= 1
                    byte &+= 1
                }
            }
        }
    }

    /// Convenience for tests and tools: masks an array in place.
    public static func apply(key: UInt32, to bytes: inout [UInt8], offset: Int = 0) {
        bytes.withUnsafeMutableBytes { apply(key: key, to: $0, offset: offset) }
    }

    @inline(__always)
    private static func xor8(_ base: UnsafeMutableRawPointer, _ index: Int, _ mask: UInt64) {
        let value = base.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ mask
        base.storeBytes(of: value, toByteOffset: index, as: UInt64.self)
    }
}
