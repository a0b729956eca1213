import Testing
import WebSocketCodec

@Suite struct MaskingTests {
    /// Straightforward reference: byte i of the frame payload XOR key byte (i % 4), key bytes big-endian.
    static func referenceMask(_ bytes: [UInt8], key: UInt32, offset: Int) -> [UInt8] {
        let keyBytes = [UInt8(key >> 24), UInt8(key >> 16 & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF)]
        return bytes.enumerated().map { $0.element ^ keyBytes[($0.offset + offset) % 4] }
    }

    @Test func matchesReferenceForAllLengthsAndOffsets() {
        var rng = SplitMix64(seed: 1)
        for length in 0...70 {
            let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for offset in 0...9 {
                let key = UInt32.random(in: 0...UInt32.max, using: &rng)
                var masked = data
                WebSocketMasking.apply(key: key, to: &masked, offset: offset)
                #expect(masked == Self.referenceMask(data, key: key, offset: offset), "length \(length) offset \(offset)")
            }
        }
    }

    @Test func keyByteOrderIsWireOrder() {
        var zeros = [UInt8](repeating: 0, count: 9)
        WebSocketMasking.apply(key: 0x0102_0304, to: &zeros)
        #expect(zeros == [1, 2, 3, 4, 1, 2, 3, 4, 1])
        var shifted = [UInt8](repeating: 0, count: 5)
        WebSocketMasking.apply(key: 0x0102_0304, to: &shifted, offset: 6)
        #expect(shifted == [3, 4, 1, 2, 3])
    }

    @Test func maskingInPiecesEqualsMaskingAtOnce() {
        var rng = SplitMix64(seed: 2)
        for _ in 0..<50 {
            let length = Int.random(in: 0...300, using: &rng)
            let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let key = UInt32.random(in: 0...UInt32.max, using: &rng)
            var whole = data
            WebSocketMasking.apply(key: key, to: &whole)
            var pieces = data
            pieces.withUnsafeMutableBytes { buffer in
                var start = 0
                while start < length {
                    let end = min(length, start + Int.random(in: 1...37, using: &rng))
                    WebSocketMasking.apply(key: key, to: UnsafeMutableRawBufferPointer(rebasing: buffer[start..<end]),
                                           offset: start)
                    start = end
                }
            }
            #expect(pieces == whole)
        }
    }

    @Test func applyingTwiceRestoresAndUnalignedStartsWork() {
        let data = (0..<100).map { UInt8($0) }
        var buffer = [UInt8](repeating: 0, count: 103) + data
        // Mask a region that starts at an odd address to exercise unaligned 8-byte loads.
        buffer.withUnsafeMutableBytes { raw in
            let region = UnsafeMutableRawBufferPointer(rebasing: raw[103...])
            WebSocketMasking.apply(key: 0xA1B2_C3D4, to: region, offset: 1)
        }
        #expect(Array(buffer[103...]) == Self.referenceMask(data, key: 0xA1B2_C3D4, offset: 1))
        buffer.withUnsafeMutableBytes { raw in
            WebSocketMasking.apply(key: 0xA1B2_C3D4, to: UnsafeMutableRawBufferPointer(rebasing: raw[103...]), offset: 1)
        }
        #expect(Array(buffer[103...]) == data)
        #expect(buffer[0..<103].allSatisfy { $0 == 0 })
    }
}
