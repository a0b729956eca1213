import Testing
import WebSocketCodec

@Suite struct FrameEncoderTests {
    static func header(_ opcode: WebSocketOpcode, fin: Bool = true, rsv1: Bool = false, length: Int, key: UInt32?) -> [UInt8] {
        var storage = [UInt8](repeating: 0xEE, count: WebSocketFrameEncoder.maxHeaderSize)
        let written = storage.withUnsafeMutableBytes {
            WebSocketFrameEncoder.writeHeader(opcode: opcode, fin: fin, rsv1: rsv1, payloadLength: length,
                                              maskKey: key, to: $0.baseAddress!)
        }
        return Array(storage[0..<written])
    }

    @Test func lengthFormsAtTheirBoundaries() {
        #expect(Self.header(.binary, length: 0, key: nil) == [0x82, 0x00])
        #expect(Self.header(.binary, length: 125, key: nil) == [0x82, 125])
        #expect(Self.header(.binary, length: 126, key: nil) == [0x82, 126, 0x00, 126])
        #expect(Self.header(.binary, length: 65535, key: nil) == [0x82, 126, 0xFF, 0xFF])
        #expect(Self.header(.binary, length: 65536, key: nil) == [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(Self.header(.binary, length: 0x0123_4567_89AB, key: nil)
            == [0x82, 127, 0, 0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB])
    }

    @Test func flagsAndMaskKey() {
        #expect(Self.header(.text, fin: false, length: 3, key: nil) == [0x01, 0x03])
        #expect(Self.header(.text, rsv1: true, length: 3, key: nil) == [0xC1, 0x03])
        #expect(Self.header(.continuation, fin: true, length: 1, key: nil) == [0x80, 0x01])
        #expect(Self.header(.close, length: 2, key: 0xA1B2_C3D4) == [0x88, 0x82, 0xA1, 0xB2, 0xC3, 0xD4])
        let longest = Self.header(.binary, length: 70_000, key: 0x0102_0304)
        #expect(longest.count == WebSocketFrameEncoder.maxHeaderSize)
        #expect(Array(longest[10...]) == [1, 2, 3, 4])
        #expect(longest[1] == 0x80 | 127)
    }

    @Test func opcodeRawValuesAndControlFlag() {
        #expect([WebSocketOpcode.continuation, .text, .binary].allSatisfy { !$0.isControl })
        #expect([WebSocketOpcode.close, .ping, .pong].allSatisfy { $0.isControl })
        #expect((0...15).compactMap { WebSocketOpcode(rawValue: UInt8($0)) }.map(\.rawValue) == [0, 1, 2, 8, 9, 10])
    }

    @Test func frameMasksACopyAndRoundTripsThroughTheDecoder() {
        var rng = SplitMix64(seed: 31)
        for length in [0, 1, 125, 126, 1000, 65535, 65536] {
            let payload = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let key = UInt32.random(in: 0...UInt32.max, using: &rng)
            let masked = WebSocketFrameEncoder.frame(opcode: .binary, payload: payload, maskKey: key)
            var unmasked = Array(masked[(masked.count - length)...])
            WebSocketMasking.apply(key: key, to: &unmasked)
            #expect(unmasked == payload)
            #expect(decodeWhole(masked, role: .server) == DecodeOutcome(events: [.message(.binary, payload)]))
            let plain = WebSocketFrameEncoder.frame(opcode: .binary, payload: payload)
            #expect(Array(plain[(plain.count - length)...]) == payload)
            #expect(decodeWhole(plain, role: .client) == DecodeOutcome(events: [.message(.binary, payload)]))
        }
    }
}
