import Testing
import WebSocketCodec

/// Header-level rules of RFC 6455 §5.2–§5.5 enforced by the decoder.
@Suite struct DecoderFrameRuleTests {
    static let protocolError = WebSocketCloseCode.protocolError

    @Test func rsv2AndRsv3AreRejectedFromTheFirstByte() {
        for bit: UInt8 in [0x20, 0x10] {
            let frame = clientFrame(.text, "hi")
            var bad = frame
            bad[0] |= bit
            #expect(decodeWhole(bad).error?.closeCode == Self.protocolError)
            // Fails fast: the first byte alone is enough.
            #expect(decodeWhole([bad[0]]).error?.closeCode == Self.protocolError)
            // Even with an inflater negotiated.
            #expect(decodeWhole(bad, inflater: RunLengthInflater()).error?.closeCode == Self.protocolError)
        }
    }

    @Test func rsv1NeedsAnInflaterAndTheFirstFrameOfADataMessage() {
        let compressed = clientFrame(.text, [1, 0x41], rsv1: true)
        #expect(decodeWhole(compressed).error?.closeCode == Self.protocolError, "no extension negotiated")
        #expect(decodeWhole(compressed, inflater: RunLengthInflater()) == DecodeOutcome(events: [.text("A")]))

        let continuation = clientFrame(.text, [1, 0x41], fin: false, rsv1: true)
            + clientFrame(.continuation, [1, 0x42], rsv1: true)
        let outcome = decodeWhole(continuation, inflater: RunLengthInflater())
        #expect(outcome.error?.closeCode == Self.protocolError, "RSV1 on a continuation frame")

        for opcode: WebSocketOpcode in [.ping, .pong, .close] {
            let control = clientFrame(opcode, [], rsv1: true)
            #expect(decodeWhole(control, inflater: RunLengthInflater()).error?.closeCode == Self.protocolError)
        }
    }

    @Test(arguments: [UInt8(3), 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF])
    func reservedOpcodesAreRejected(_ opcode: UInt8) {
        let frame = rawHeader(first: 0x80 | opcode, masked: true, length: 0)
        #expect(decodeWhole(frame).error?.closeCode == Self.protocolError)
        #expect(decodeWhole([0x80 | opcode]).error?.closeCode == Self.protocolError)
    }

    @Test func serverRequiresMaskedFrames() {
        let unmasked = WebSocketFrameEncoder.frame(opcode: .text, payload: Array("hi".utf8))
        #expect(decodeWhole(unmasked, role: .server).error?.closeCode == Self.protocolError)
        let unmaskedPing = WebSocketFrameEncoder.frame(opcode: .ping, payload: [])
        #expect(decodeWhole(unmaskedPing, role: .server).error?.closeCode == Self.protocolError)
    }

    @Test func clientRejectsMaskedFrames() {
        #expect(decodeWhole(clientFrame(.text, "hi"), role: .client).error?.closeCode == Self.protocolError)
        #expect(decodeWhole(clientFrame(.pong, []), role: .client).error?.closeCode == Self.protocolError)
    }

    @Test func clientRoleDecodesWhatAServerEncodes() {
        let stream = WebSocketFrameEncoder.frame(opcode: .binary, payload: [1, 2, 3], fin: false)
            + WebSocketFrameEncoder.frame(opcode: .ping, payload: [9])
            + WebSocketFrameEncoder.frame(opcode: .continuation, payload: [4])
            + WebSocketFrameEncoder.frame(opcode: .close, payload: WebSocketFrameEncoder.closePayload(code: 1000, reason: "done"))
        let expected = DecodeOutcome(events: [.ping([9]), .message(.binary, [1, 2, 3, 4]), .close(1000, Array("done".utf8))])
        #expect(decodeWhole(stream, role: .client) == expected)
        #expect(decodeByteByByte(stream, role: .client) == expected)
    }

    @Test func controlFramesMustHaveFinAndAtMost125Bytes() {
        for opcode: WebSocketOpcode in [.ping, .pong, .close] {
            let fragmented = clientFrame(opcode, [], fin: false)
            #expect(decodeWhole(fragmented).error?.closeCode == Self.protocolError)
            let long = clientFrame(opcode, [UInt8](repeating: 0x41, count: 126))
            #expect(decodeWhole(long).error?.closeCode == Self.protocolError)
            // Rejected from the first two bytes, before the payload arrives.
            #expect(decodeWhole(Array(long[0..<2])).error?.closeCode == Self.protocolError)
        }
        let maximal = clientFrame(.ping, [UInt8](repeating: 0x41, count: 125))
        #expect(decodeWhole(maximal) == DecodeOutcome(events: [.ping([UInt8](repeating: 0x41, count: 125))]))
    }

    @Test func controlFramesBetweenFragmentsAreDeliveredImmediately() {
        var decoder = WebSocketDecoder(role: .server, limits: .testDefault)
        let first = feed([clientFrame(.text, "Hel", fin: false), clientFrame(.ping, "p")], into: &decoder)
        #expect(first == DecodeOutcome(events: [.ping(Array("p".utf8))]))
        let second = feed([clientFrame(.pong, "q"), clientFrame(.continuation, "lo")], into: &decoder)
        #expect(second == DecodeOutcome(events: [.pong(Array("q".utf8)), .text("Hello")]))
    }

    @Test func continuationWithoutAMessageIsRejected() {
        #expect(decodeWhole(clientFrame(.continuation, "x")).error?.closeCode == Self.protocolError)
        let afterComplete = clientFrame(.text, "done") + clientFrame(.continuation, "x")
        let outcome = decodeWhole(afterComplete)
        #expect(outcome.events == [.text("done")])
        #expect(outcome.error?.closeCode == Self.protocolError)
    }

    @Test func newDataFrameDuringAFragmentedMessageIsRejected() {
        for opcode: WebSocketOpcode in [.text, .binary] {
            let stream = clientFrame(.binary, [1], fin: false) + clientFrame(opcode, [2])
            #expect(decodeWhole(stream).error?.closeCode == Self.protocolError)
        }
    }

    @Test func lengthWithTheHighBitSetIsRejectedFromItsFirstByte() {
        var header = rawHeader(first: 0x82, masked: true, length: 0, lengthForm: 64)
        header[2] = 0x80
        #expect(decodeWhole(Array(header[0..<3])).error?.closeCode == Self.protocolError)
        #expect(decodeWhole(header).error?.closeCode == Self.protocolError)
    }

    @Test func nonMinimalLengthEncodingsAreAccepted() {
        var masked = Array("Hello".utf8)
        WebSocketMasking.apply(key: 0x0102_0304, to: &masked)
        for form in [16, 64] {
            let frame = rawHeader(first: 0x81, masked: true, length: 5, lengthForm: form) + masked
            #expect(decodeWhole(frame) == DecodeOutcome(events: [.text("Hello")]), "form \(form)")
        }
    }

    @Test func emptyMessagesAndEmptyFragments() {
        let stream = clientFrame(.text, []) + clientFrame(.binary, [])
            + clientFrame(.text, [], fin: false) + clientFrame(.continuation, [], fin: false)
            + clientFrame(.continuation, "x")
        let expected = DecodeOutcome(events: [.text(""), .message(.binary, []), .text("x")])
        #expect(decodeWhole(stream) == expected)
        #expect(decodeByteByByte(stream) == expected)
    }
}
