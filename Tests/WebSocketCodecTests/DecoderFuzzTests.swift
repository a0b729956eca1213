import Testing
import WebSocketCodec

/// Random and mutated input never crashes the decoder: it either decodes or throws a WebSocketProtocolError.
@Suite struct DecoderFuzzTests {
    static let knownCodes: Set<UInt16> = [WebSocketCloseCode.protocolError, WebSocketCloseCode.invalidPayload,
                                          WebSocketCloseCode.messageTooBig]
    static let limits = WebSocketLimits(maxFrameSize: 4096, maxMessageSize: 8192)

    @Test(arguments: [WebSocketRole.server, .client])
    func randomBytesNeverCrash(_ role: WebSocketRole) {
        var rng = SplitMix64(seed: role == .server ? 21 : 22)
        var errors = 0
        for iteration in 0..<1500 {
            let length = Int.random(in: 0...64, using: &rng)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if iteration % 2 == 0 && !bytes.isEmpty {
                // Make the first header plausible so the fuzz reaches deeper states.
                bytes[0] = [0x81, 0x82, 0x01, 0x02, 0x80, 0x89, 0x8A, 0x88, 0xC1][Int.random(in: 0..<9, using: &rng)]
                if bytes.count > 1 { bytes[1] = (role == .server ? 0x80 : 0) | (bytes[1] & 0x7F) }
            }
            let inflater: RunLengthInflater? = iteration % 3 == 0 ? RunLengthInflater() : nil
            var decoder = WebSocketDecoder(role: role, limits: Self.limits, inflater: inflater)
            let outcome = feed(randomSplit(bytes, maxChunk: 16, using: &rng), into: &decoder)
            if let error = outcome.error {
                errors += 1
                #expect(Self.knownCodes.contains(error.closeCode), "\(error)")
            } else {
                #expect(outcome.leftover <= bytes.count)
            }
        }
        #expect(errors > 100, "random input must hit error paths")
    }

    @Test func mutatedValidStreamsNeverCrash() {
        var rng = SplitMix64(seed: 23)
        let base = clientFrame(.text, "Hello, world €", fin: false) + clientFrame(.ping, "p")
            + clientFrame(.continuation, "!!") + clientFrame(.binary, [UInt8](repeating: 3, count: 300))
            + clientFrame(.close, [0x03, 0xE8, 0x6F, 0x6B])
        #expect(decodeWhole(base, limits: Self.limits).events.count == 4)
        var outcomesWithEvents = 0
        for _ in 0..<1500 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            }
            var decoder = WebSocketDecoder(role: .server, limits: Self.limits, inflater: RunLengthInflater())
            let outcome = feed(randomSplit(bytes, maxChunk: 50, using: &rng), into: &decoder)
            if let error = outcome.error { #expect(Self.knownCodes.contains(error.closeCode), "\(error)") }
            if !outcome.events.isEmpty { outcomesWithEvents += 1 }
        }
        #expect(outcomesWithEvents > 0)
    }
}
