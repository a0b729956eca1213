import Testing
import WebSocketCodec

/// A stand-in for permessage-deflate: input is (count, byte) pairs, each expanding to `count` copies of `byte`.
/// Pairs may be split across calls. Records every call so tests can check how the decoder drives it.
final class RunLengthInflater: WebSocketMessageInflater {
    struct Call: Equatable { var input: [UInt8]; var isFinal: Bool; var limit: Int }
    private(set) var calls: [Call] = []
    private var pendingCount: UInt8?

    func inflate(_ input: UnsafeRawBufferPointer, isFinal: Bool, into output: inout [UInt8], limit: Int)
        throws(WebSocketProtocolError)
    {
        calls.append(Call(input: Array(input), isFinal: isFinal, limit: limit))
        for byte in input {
            guard let count = pendingCount else { pendingCount = byte; continue }
            pendingCount = nil
            if output.count + Int(count) > limit {
                throw WebSocketProtocolError(closeCode: WebSocketCloseCode.messageTooBig, reason: "inflated too big")
            }
            output.append(contentsOf: repeatElement(byte, count: Int(count)))
        }
        if isFinal && pendingCount != nil {
            throw WebSocketProtocolError(closeCode: WebSocketCloseCode.invalidPayload, reason: "corrupt")
        }
    }

    /// Encodes a text as (1, byte) pairs, or runs for repeated bytes.
    static func compress(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            var run = 1
            while index + run < bytes.count && bytes[index + run] == bytes[index] && run < 255 { run += 1 }
            output += [UInt8(run), bytes[index]]
            index += run
        }
        return output
    }
}

@Suite struct DecoderCompressionTests {
    @Test func singleCompressedFrameIsInflated() {
        let inflater = RunLengthInflater()
        let text = Array("aaaaabbbbbbbbbb hello".utf8)
        let frame = clientFrame(.text, RunLengthInflater.compress(text), rsv1: true)
        #expect(decodeWhole(frame, inflater: inflater) == DecodeOutcome(events: [.message(.text, text)]))
        #expect(inflater.calls.count == 1)
        #expect(inflater.calls.last?.isFinal == true)
        #expect(inflater.calls.last?.limit == WebSocketLimits.testDefault.maxMessageSize)
    }

    @Test func fragmentedCompressedMessageFlagsOnlyTheLastBytesAsFinal() {
        let text = Array(String(repeating: "zz€ ", count: 40).utf8)
        let compressed = RunLengthInflater.compress(text)
        let cut = compressed.count / 2 + 1  // splits a pair across frames
        let stream = clientFrame(.text, Array(compressed[..<cut]), fin: false, rsv1: true)
            + clientFrame(.ping, "mid")
            + clientFrame(.continuation, Array(compressed[cut...]))
        for byteByByte in [false, true] {
            let inflater = RunLengthInflater()
            let outcome = byteByByte ? decodeByteByByte(stream, inflater: inflater) : decodeWhole(stream, inflater: inflater)
            #expect(outcome == DecodeOutcome(events: [.ping(Array("mid".utf8)), .message(.text, text)]))
            #expect(inflater.calls.filter(\.isFinal).count == 1)
            #expect(inflater.calls.last?.isFinal == true)
            #expect(inflater.calls.last?.input.last == compressed.last)
            #expect(inflater.calls.flatMap(\.input) == compressed, "every compressed byte passed exactly once, in order")
        }
    }

    @Test func emptyFinalFrameStillFlushesTheInflater() {
        let inflater = RunLengthInflater()
        let stream = clientFrame(.binary, [3, 9], fin: false, rsv1: true) + clientFrame(.continuation, [])
        #expect(decodeWhole(stream, inflater: inflater) == DecodeOutcome(events: [.message(.binary, [9, 9, 9])]))
        #expect(inflater.calls.last == RunLengthInflater.Call(input: [], isFinal: true, limit: 1 << 20))
    }

    @Test func inflatedSizeIsCappedByMaxMessageSize() {
        let limits = WebSocketLimits(maxFrameSize: 1000, maxMessageSize: 500)
        let bomb = clientFrame(.binary, [255, 1, 255, 1], rsv1: true)  // 510 bytes inflated from 4
        let outcome = decodeWhole(bomb, limits: limits, inflater: RunLengthInflater())
        #expect(outcome.error?.closeCode == WebSocketCloseCode.messageTooBig)
        let fits = clientFrame(.binary, [250, 1, 250, 1], rsv1: true)
        #expect(decodeWhole(fits, limits: limits, inflater: RunLengthInflater()).events.count == 1)
    }

    @Test func invalidInflatedTextFailsFastWith1007() {
        let inflater = RunLengthInflater()
        let first = clientFrame(.text, [3, 0x41, 1, 0xFF], fin: false, rsv1: true)
        var decoder = WebSocketDecoder(role: .server, limits: .testDefault, inflater: inflater)
        let outcome = feed([first], into: &decoder)
        #expect(outcome.error?.closeCode == WebSocketCloseCode.invalidPayload, "before the final frame arrives")
        #expect(inflater.calls.allSatisfy { !$0.isFinal })
    }

    @Test func incompleteCodePointAtTheEndOfACompressedTextFails() {
        let frame = clientFrame(.text, [1, 0x41, 1, 0xE2, 1, 0x82], rsv1: true)
        #expect(decodeWhole(frame, inflater: RunLengthInflater()).error?.closeCode == WebSocketCloseCode.invalidPayload)
    }

    @Test func inflaterErrorsPropagate() {
        let corrupt = clientFrame(.binary, [2, 7, 5], rsv1: true)  // dangling count
        #expect(decodeWhole(corrupt, inflater: RunLengthInflater()).error?.closeCode == WebSocketCloseCode.invalidPayload)
    }

    @Test func compressedAndPlainMessagesAlternate() {
        let inflater = RunLengthInflater()
        let stream = clientFrame(.text, [2, 0x61], rsv1: true) + clientFrame(.text, "plain")
            + clientFrame(.binary, [1, 0], fin: false, rsv1: true) + clientFrame(.continuation, [1, 1])
            + clientFrame(.binary, [2, 0x61])
        let expected = DecodeOutcome(events: [
            .text("aa"), .text("plain"), .message(.binary, [0, 1]), .message(.binary, [2, 0x61]),
        ])
        #expect(decodeWhole(stream, inflater: inflater) == expected)
        #expect(decodeByteByByte(stream, inflater: RunLengthInflater()) == expected)
        #expect(inflater.calls.filter(\.isFinal).count == 2, "plain messages never reach the inflater")
    }
}
