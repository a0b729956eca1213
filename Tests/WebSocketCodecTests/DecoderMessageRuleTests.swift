import Testing
@testable import WebSocketCodec

/// Message-level rules: limits (1009), UTF-8 (1007), streaming consumption, zero-copy fast path, buffer reuse.
@Suite struct DecoderMessageRuleTests {
    static let small = WebSocketLimits(maxFrameSize: 100, maxMessageSize: 250)

    @Test func frameOverMaxFrameSizeFailsFromTheHeaderAlone() {
        let header = rawHeader(first: 0x82, masked: true, length: 101)
        let outcome = decodeWhole(header, limits: Self.small)
        #expect(outcome.error?.closeCode == WebSocketCloseCode.messageTooBig)
        let atLimit = clientFrame(.binary, [UInt8](repeating: 7, count: 100))
        #expect(decodeWhole(atLimit, limits: Self.small).events.count == 1)
        let hugeHeader = rawHeader(first: 0x82, masked: true, length: Int(Int32.max) * 4)
        #expect(decodeWhole(hugeHeader, limits: Self.small).error?.closeCode == WebSocketCloseCode.messageTooBig)
    }

    @Test func messageOverMaxMessageSizeFailsAtTheHeaderThatCrossesIt() {
        let fragment = [UInt8](repeating: 1, count: 100)
        var decoder = WebSocketDecoder(role: .server, limits: Self.small)
        let first = feed([clientFrame(.binary, fragment, fin: false), clientFrame(.continuation, fragment, fin: false)],
                         into: &decoder)
        #expect(first == DecodeOutcome())
        // 200 bytes so far; a header announcing 51 more fails before any of its payload arrives.
        let crossing = rawHeader(first: 0x80, masked: true, length: 51)
        #expect(feed([crossing], into: &decoder).error?.closeCode == WebSocketCloseCode.messageTooBig)

        let exact = clientFrame(.binary, fragment, fin: false) + clientFrame(.continuation, fragment, fin: false)
            + clientFrame(.continuation, [UInt8](repeating: 1, count: 50))
        #expect(decodeWhole(exact, limits: Self.small).events == [.message(.binary, [UInt8](repeating: 1, count: 250))])
    }

    @Test func invalidUTF8AcrossFragmentsFailsWith1007() {
        // "€" is E2 82 AC; split it across fragments (valid), then an invalid continuation.
        let valid = clientFrame(.text, [0x41, 0xE2], fin: false) + clientFrame(.continuation, [0x82], fin: false)
            + clientFrame(.continuation, [0xAC])
        #expect(decodeWhole(valid) == DecodeOutcome(events: [.message(.text, [0x41, 0xE2, 0x82, 0xAC])]))
        let invalid = clientFrame(.text, [0x41, 0xE2], fin: false) + clientFrame(.continuation, [0x41])
        #expect(decodeWhole(invalid).error?.closeCode == WebSocketCloseCode.invalidPayload)
    }

    @Test func invalidUTF8FailsBeforeTheRestOfTheFrameArrives() {
        let payload = Array("hello".utf8) + [0xC0] + [UInt8](repeating: 0x41, count: 1000)
        let frame = clientFrame(.text, payload)
        var decoder = WebSocketDecoder(role: .server, limits: .testDefault)
        // Header (8 bytes: 16-bit length + key) plus the first 7 payload bytes only.
        let outcome = feed([Array(frame[0..<15])], into: &decoder)
        #expect(outcome.error?.closeCode == WebSocketCloseCode.invalidPayload)
        #expect(outcome.events.isEmpty)
        // The decoder stays failed.
        #expect(feed([Array(frame[15...])], into: &decoder).error?.closeCode == WebSocketCloseCode.invalidPayload)
    }

    @Test func incompleteCodePointAtTheEndOfTheMessageFailsWith1007() {
        #expect(decodeWhole(clientFrame(.text, [0x41, 0xF0, 0x9F])).error?.closeCode == WebSocketCloseCode.invalidPayload)
        let fragmented = clientFrame(.text, [0x41], fin: false) + clientFrame(.continuation, [0xF0, 0x9F, 0x98])
        #expect(decodeWhole(fragmented).error?.closeCode == WebSocketCloseCode.invalidPayload)
        // Binary messages are not checked.
        #expect(decodeWhole(clientFrame(.binary, [0xF0, 0x9F])).events == [.message(.binary, [0xF0, 0x9F])])
    }

    @Test func partialDataFramesAreConsumedButIncompleteHeadersAndControlFramesAreNot() throws {
        var decoder = WebSocketDecoder(role: .server, limits: .testDefault)
        var bytes = clientFrame(.binary, [UInt8](repeating: 5, count: 300))
        var events: [RecordedEvent] = []
        // 3 of the 8 header bytes: nothing can be consumed.
        let headerOnly = try bytes.withUnsafeMutableBytes {
            try decoder.decode(UnsafeMutableRawBufferPointer(rebasing: $0[0..<3])) { events.append(RecordedEvent($0)) }
        }
        #expect(headerOnly == 0)
        // Header plus 100 payload bytes: all consumed, though the frame is incomplete.
        let partial = try bytes.withUnsafeMutableBytes {
            try decoder.decode(UnsafeMutableRawBufferPointer(rebasing: $0[0..<108])) { events.append(RecordedEvent($0)) }
        }
        #expect(partial == 108)
        #expect(events.isEmpty)

        var ping = clientFrame(.ping, "abc")
        var controlDecoder = WebSocketDecoder(role: .server, limits: .testDefault)
        let incompleteControl = try ping.withUnsafeMutableBytes {
            try controlDecoder.decode(UnsafeMutableRawBufferPointer(rebasing: $0[0..<8])) { events.append(RecordedEvent($0)) }
        }
        #expect(incompleteControl == 0)
        #expect(events.isEmpty)
    }

    @Test func completeUnfragmentedMessagesPointIntoTheInputBuffer() throws {
        var decoder = WebSocketDecoder(role: .server, limits: .testDefault)
        var stream = clientFrame(.text, "zero copy") + clientFrame(.binary, [1, 2], fin: false) + clientFrame(.continuation, [3])
        var insideInput: [Bool] = []
        let consumed = try stream.withUnsafeMutableBytes { buffer in
            let range = UInt(bitPattern: buffer.baseAddress!)..<UInt(bitPattern: buffer.baseAddress! + buffer.count)
            return try decoder.decode(buffer) { event in
                guard case .message(_, let payload) = event else { return }
                insideInput.append(range.contains(UInt(bitPattern: payload.baseAddress!)))
            }
        }
        #expect(consumed == stream.count)
        #expect(insideInput == [true, false], "fast path in place; fragmented message reassembled")
        // Unmasked in place.
        #expect(Array(stream[6..<15]) == Array("zero copy".utf8))
    }

    @Test func reassemblyBufferIsReusedButReleasedWhenLarge() {
        var decoder = WebSocketDecoder(role: .server, limits: .testDefault)
        let smallMessage = clientFrame(.binary, [UInt8](repeating: 1, count: 1000), fin: false) + clientFrame(.continuation, [2])
        #expect(feed([smallMessage], into: &decoder).events.count == 1)
        #expect(decoder.message.isEmpty)
        #expect(decoder.message.capacity >= 1001, "capacity kept for the next message")
        let bigMessage = clientFrame(.binary, [UInt8](repeating: 1, count: 100_000), fin: false) + clientFrame(.continuation, [2])
        #expect(feed([bigMessage], into: &decoder).events.count == 1)
        #expect(decoder.message.capacity <= WebSocketDecoder.retainedCapacity)
    }

    @Test func aProtocolErrorIsSticky() {
        var decoder = WebSocketDecoder(role: .server, limits: .testDefault)
        #expect(feed([[0xF1]], into: &decoder).error?.closeCode == WebSocketCloseCode.protocolError)
        #expect(feed([clientFrame(.text, "fine")], into: &decoder).error?.closeCode == WebSocketCloseCode.protocolError)
    }

    @Test func errorsFromTheEventHandlerPropagate() {
        struct Stop: Error {}
        var decoder = WebSocketDecoder(role: .server, limits: .testDefault)
        var stream = clientFrame(.ping, [])
        #expect(throws: Stop.self) {
            _ = try stream.withUnsafeMutableBytes { try decoder.decode($0) { _ in throw Stop() } }
        }
    }
}
