import Testing
import WebSocketCodec
@testable import switchboard_load

/// Echo payloads and the verifier that counts loss, duplication and corruption.
struct EchoVerifierTests {
    private func payload(_ sequence: UInt64, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { EchoPayload.fill($0, sequence: sequence) }
        return bytes
    }

    private func receive(_ verifier: inout EchoVerifier, _ bytes: [UInt8], opcode: WebSocketOpcode = .binary)
        -> EchoVerifier.Outcome {
        bytes.withUnsafeBytes { verifier.receive(opcode: opcode, payload: $0) }
    }

    @Test func payloadCarriesItsSequenceAndMatchesOnlyItself() {
        for size in [8, 9, 20, 1024] {
            let bytes = payload(12345, size: size)
            bytes.withUnsafeBytes { raw in
                #expect(EchoPayload.sequence(of: raw) == 12345)
                #expect(EchoPayload.matches(raw, sequence: 12345, size: size))
                #expect(!EchoPayload.matches(raw, sequence: 12346, size: size))
                #expect(!EchoPayload.matches(raw, sequence: 12345, size: size + 1))
            }
        }
        // Different messages differ beyond the header too, so a stale filler is caught.
        #expect(payload(1, size: 40)[8...] != payload(2, size: 40)[8...])
    }

    @Test func inOrderRepliesMatch() {
        var verifier = EchoVerifier(size: 20)
        for _ in 0..<5 { _ = verifier.takeSequence() }
        #expect(verifier.outstanding == 5)
        for sequence: UInt64 in 0..<5 {
            #expect(receive(&verifier, payload(sequence, size: 20)) == .matched(sequence: sequence, skipped: 0))
        }
        #expect(verifier.outstanding == 0)
    }

    @Test func gapCountsLossAndEarlierReplyIsDuplicate() {
        var verifier = EchoVerifier(size: 16)
        for _ in 0..<4 { _ = verifier.takeSequence() }
        #expect(receive(&verifier, payload(2, size: 16)) == .matched(sequence: 2, skipped: 2))
        #expect(receive(&verifier, payload(1, size: 16)) == .duplicate)
        #expect(receive(&verifier, payload(3, size: 16)) == .matched(sequence: 3, skipped: 0))
        // Nothing in flight: anything more is a duplicate.
        #expect(receive(&verifier, payload(3, size: 16)) == .duplicate)
    }

    @Test func flippedByteWrongLengthOrOpcodeIsCorruption() {
        var verifier = EchoVerifier(size: 24)
        for _ in 0..<4 { _ = verifier.takeSequence() }
        var flipped = payload(0, size: 24)
        flipped[17] ^= 0x01
        #expect(receive(&verifier, flipped) == .corrupted)
        #expect(receive(&verifier, Array(payload(1, size: 24).prefix(23))) == .corrupted)
        #expect(receive(&verifier, payload(2, size: 24), opcode: .text) == .corrupted)
        // A corruption stands for the expected message, so the next good one is not also counted as lost.
        #expect(receive(&verifier, payload(3, size: 24)) == .matched(sequence: 3, skipped: 0))
    }

    @Test func replyFromTheFutureIsCorruptionNotLoss() {
        var verifier = EchoVerifier(size: 8)
        _ = verifier.takeSequence()
        #expect(receive(&verifier, payload(7, size: 8)) == .corrupted)
    }

    @Test func abandoningCountsOutstandingAsLost() {
        var verifier = EchoVerifier(size: 8)
        for _ in 0..<3 { _ = verifier.takeSequence() }
        _ = receive(&verifier, payload(0, size: 8))
        #expect(verifier.abandonOutstanding() == 2)
        #expect(verifier.outstanding == 0)
    }
}
