import Testing
import WebSocketCodec

/// Feeding the same bytes whole, byte by byte, or in random splits must give the same events and errors.
@Suite struct DecoderSplitFeedingTests {
    /// A session mixing every frame kind: multi-byte characters split across fragments, interleaved control
    /// frames, all three length forms, empty messages, and a close at the end.
    static func session(keySeed: UInt64) -> (bytes: [UInt8], events: [RecordedEvent]) {
        var rng = SplitMix64(seed: keySeed)
        func key() -> UInt32 { UInt32.random(in: 0...UInt32.max, using: &rng) }
        let big = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let medium = Array(String(repeating: "ÄÖÜ €𝄞 ", count: 60).utf8)  // > 125 bytes, 16-bit length
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        var bytes: [UInt8] = []
        bytes += clientFrame(.text, Array("Hello".utf8), key: key())
        bytes += clientFrame(.text, [0x41, euro[0]], fin: false, key: key())
        bytes += clientFrame(.ping, Array("are you there".utf8), key: key())
        bytes += clientFrame(.continuation, [euro[1]], fin: false, key: key())
        bytes += clientFrame(.continuation, [euro[2], 0x42], key: key())
        bytes += clientFrame(.binary, big, key: key())
        bytes += clientFrame(.text, medium, key: key())
        bytes += clientFrame(.binary, [], key: key())
        bytes += clientFrame(.binary, Array(big[0..<1000]), fin: false, key: key())
        bytes += clientFrame(.pong, [], key: key())
        bytes += clientFrame(.continuation, Array(big[1000..<3000]), key: key())
        bytes += clientFrame(.close, WebSocketFrameEncoder.closePayload(code: 1000, reason: "bye ✓"), key: key())
        let events: [RecordedEvent] = [
            .text("Hello"), .ping(Array("are you there".utf8)), .message(.text, [0x41] + euro + [0x42]),
            .message(.binary, big), .message(.text, medium), .message(.binary, []), .pong([]),
            .message(.binary, Array(big[0..<3000])), .close(1000, Array("bye ✓".utf8)),
        ]
        return (bytes, events)
    }

    @Test func wholeByteByByteAndRandomSplitsAgree() {
        let (bytes, events) = Self.session(keySeed: 11)
        let expected = DecodeOutcome(events: events)
        #expect(decodeWhole(bytes) == expected)
        #expect(decodeByteByByte(bytes) == expected)
        var rng = SplitMix64(seed: 12)
        // Small chunks cost one decode call per few bytes, so fewer rounds of those keep the test fast.
        for (maxChunk, rounds) in [(3, 1), (17, 2), (200, 4), (5000, 4), (40_000, 4)] {
            for _ in 0..<rounds {
                var decoder = WebSocketDecoder(role: .server, limits: .testDefault)
                let chunks = randomSplit(bytes, maxChunk: maxChunk, using: &rng)
                #expect(feed(chunks, into: &decoder) == expected, "max chunk \(maxChunk)")
            }
        }
    }

    @Test func clientRoleSplitsAgree() {
        let payload = Array(String(repeating: "κόσμε ", count: 30).utf8)
        let bytes = WebSocketFrameEncoder.frame(opcode: .text, payload: Array(payload[0..<101]), fin: false)
            + WebSocketFrameEncoder.frame(opcode: .ping, payload: [1, 2])
            + WebSocketFrameEncoder.frame(opcode: .continuation, payload: Array(payload[101...]))
        let expected = DecodeOutcome(events: [.ping([1, 2]), .message(.text, payload)])
        #expect(decodeWhole(bytes, role: .client) == expected)
        #expect(decodeByteByByte(bytes, role: .client) == expected)
        var rng = SplitMix64(seed: 13)
        for _ in 0..<20 {
            var decoder = WebSocketDecoder(role: .client, limits: .testDefault)
            #expect(feed(randomSplit(bytes, maxChunk: 40, using: &rng), into: &decoder) == expected)
        }
    }

    /// Streams that fail: every way of feeding them yields the same events before the same error.
    static let failingStreams: [([UInt8], UInt16)] = [
        (clientFrame(.text, "ok") + clientFrame(.text, [0x41, 0xED, 0xA0, 0x80, 0x41]), 1007),
        (clientFrame(.text, [0xCE], fin: false) + clientFrame(.ping, []) + clientFrame(.continuation, [0x41]), 1007),
        (clientFrame(.binary, [1], fin: false) + clientFrame(.ping, "x") + clientFrame(.text, "y"), 1002),
        (clientFrame(.ping, "a") + WebSocketFrameEncoder.frame(opcode: .text, payload: [0x41]), 1002),
        (clientFrame(.pong, []) + clientFrame(.close, [0x03]), 1002),
        (clientFrame(.text, "x") + clientFrame(.binary, [UInt8](repeating: 0, count: 2000)), 1009),
    ]

    @Test(arguments: failingStreams)
    func errorsAreTheSameWhateverTheSplit(_ bytes: [UInt8], _ code: UInt16) {
        let limits = WebSocketLimits(maxFrameSize: 1000, maxMessageSize: 1000)
        let whole = decodeWhole(bytes, limits: limits)
        #expect(whole.error?.closeCode == code)
        var expected = whole
        expected.leftover = 0  // leftover depends on where the split fell; compare events and error only
        var byteWise = decodeByteByByte(bytes, limits: limits)
        byteWise.leftover = 0
        #expect(byteWise == expected)
        var rng = SplitMix64(seed: UInt64(bytes.count))
        for _ in 0..<20 {
            var decoder = WebSocketDecoder(role: .server, limits: limits)
            var outcome = feed(randomSplit(bytes, maxChunk: 9, using: &rng), into: &decoder)
            outcome.leftover = 0
            #expect(outcome == expected)
        }
    }
}
