import Testing
import WebSocketCodec

/// The example frames of RFC 6455 §5.7, decoded in the right role and re-encoded byte for byte.
@Suite struct RFCExampleFrameTests {
    static let hello = Array("Hello".utf8)
    /// §5.7: a single-frame masked text message "Hello" with key 37 fa 21 3d.
    static let maskedHello: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
    static let exampleKey: UInt32 = 0x37FA_213D

    @Test func singleFrameUnmaskedText() {
        let frame: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
        let outcome = decodeWhole(frame, role: .client)
        #expect(outcome == DecodeOutcome(events: [.text("Hello")]))
        #expect(WebSocketFrameEncoder.frame(opcode: .text, payload: Self.hello) == frame)
    }

    @Test func singleFrameMaskedText() {
        let outcome = decodeWhole(Self.maskedHello, role: .server)
        #expect(outcome == DecodeOutcome(events: [.text("Hello")]))
        #expect(WebSocketFrameEncoder.frame(opcode: .text, payload: Self.hello, maskKey: Self.exampleKey)
            == Self.maskedHello)
    }

    @Test func fragmentedUnmaskedText() {
        let first: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6C]  // "Hel", FIN clear
        let second: [UInt8] = [0x80, 0x02, 0x6C, 0x6F]       // continuation "lo", FIN set
        var decoder = WebSocketDecoder(role: .client, limits: .testDefault)
        let afterFirst = feed([first], into: &decoder)
        #expect(afterFirst == DecodeOutcome(events: [], error: nil, leftover: 0))
        let afterSecond = feed([second], into: &decoder)
        #expect(afterSecond == DecodeOutcome(events: [.text("Hello")]))
        #expect(WebSocketFrameEncoder.frame(opcode: .text, payload: Array("Hel".utf8), fin: false) == first)
        #expect(WebSocketFrameEncoder.frame(opcode: .continuation, payload: Array("lo".utf8)) == second)
    }

    @Test func unmaskedPingAndMaskedPong() {
        let ping: [UInt8] = [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
        #expect(decodeWhole(ping, role: .client) == DecodeOutcome(events: [.ping(Self.hello)]))
        let pong: [UInt8] = [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(decodeWhole(pong, role: .server) == DecodeOutcome(events: [.pong(Self.hello)]))
        #expect(WebSocketFrameEncoder.frame(opcode: .ping, payload: Self.hello) == ping)
        #expect(WebSocketFrameEncoder.frame(opcode: .pong, payload: Self.hello, maskKey: Self.exampleKey) == pong)
    }

    @Test func binary256BytesUses16BitLength() {
        let payload = (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let frame: [UInt8] = [0x82, 0x7E, 0x01, 0x00] + payload
        #expect(WebSocketFrameEncoder.frame(opcode: .binary, payload: payload) == frame)
        #expect(decodeWhole(frame, role: .client) == DecodeOutcome(events: [.message(.binary, payload)]))
    }

    @Test func binary64KiBUses64BitLength() {
        let payload = (0..<65536).map { UInt8(truncatingIfNeeded: $0 ^ ($0 >> 8)) }
        let frame: [UInt8] = [0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00] + payload
        #expect(WebSocketFrameEncoder.frame(opcode: .binary, payload: payload) == frame)
        #expect(decodeWhole(frame, role: .client) == DecodeOutcome(events: [.message(.binary, payload)]))
        // The same frame masked, as a client sends it, decoded by a server split at awkward places.
        let masked = WebSocketFrameEncoder.frame(opcode: .binary, payload: payload, maskKey: 0xDEAD_BEEF)
        #expect(masked.count == 14 + 65536)
        var decoder = WebSocketDecoder(role: .server, limits: .testDefault)
        let chunks = [Array(masked[0..<3]), Array(masked[3..<13]), Array(masked[13..<40_001]), Array(masked[40_001...])]
        #expect(feed(chunks, into: &decoder) == DecodeOutcome(events: [.message(.binary, payload)]))
    }
}
