import Testing
import WebSocketCodec

/// Close codes (RFC 6455 §7.4) and close frame payload rules (§5.5.1).
@Suite struct CloseFrameTests {
    /// Every code range with whether it may appear in a received close frame.
    static let codeTable: [(ClosedRange<UInt16>, Bool)] = [
        (0...999, false), (1000...1003, true), (1004...1006, false), (1007...1011, true),
        (1012...1014, true), (1015...1015, false), (1016...2999, false), (3000...4999, true),
        (5000...UInt16.max, false),
    ]

    @Test func tableCoversEveryCodeExactlyOnce() {
        let total = Self.codeTable.reduce(0) { $0 + $1.0.count }
        #expect(total == 65536)
    }

    @Test func isValidOnWireMatchesTheTableForEveryCode() {
        for (range, valid) in Self.codeTable {
            let mismatches = range.filter { WebSocketCloseCode.isValidOnWire($0) != valid }
            #expect(mismatches.isEmpty, "range \(range): \(mismatches.prefix(5))")
        }
    }

    static func closeFrame(_ payload: [UInt8]) -> [UInt8] { clientFrame(.close, payload) }

    @Test func decoderAcceptsValidAndRejectsInvalidCodesPerRange() {
        for (range, valid) in Self.codeTable {
            // Both ends and the middle of every range.
            for code in Set([range.lowerBound, range.upperBound, range.lowerBound + (range.upperBound - range.lowerBound) / 2]) {
                let payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8)
                let outcome = decodeWhole(Self.closeFrame(payload))
                if valid {
                    #expect(outcome == DecodeOutcome(events: [.close(code, Array("bye".utf8))]), "code \(code)")
                } else {
                    #expect(outcome.error?.closeCode == WebSocketCloseCode.protocolError, "code \(code)")
                    #expect(outcome.events.isEmpty)
                }
            }
        }
    }

    @Test func emptyCloseHasNoCode() {
        #expect(decodeWhole(Self.closeFrame([])) == DecodeOutcome(events: [.close(nil, [])]))
    }

    @Test func oneByteCloseIsAProtocolError() {
        #expect(decodeWhole(Self.closeFrame([0x03])).error?.closeCode == WebSocketCloseCode.protocolError)
    }

    @Test func closeReasonMustBeValidUTF8() {
        let outcome = decodeWhole(Self.closeFrame([0x03, 0xE8, 0x41, 0xED, 0xA0, 0x80]))
        #expect(outcome.error?.closeCode == WebSocketCloseCode.invalidPayload)
        let truncated = decodeWhole(Self.closeFrame([0x03, 0xE8, 0xE2, 0x82]))
        #expect(truncated.error?.closeCode == WebSocketCloseCode.invalidPayload)
        let valid = decodeWhole(Self.closeFrame([0x03, 0xE8, 0xE2, 0x82, 0xAC]))
        #expect(valid == DecodeOutcome(events: [.close(1000, [0xE2, 0x82, 0xAC])]))
    }

    @Test func dataAfterCloseIsConsumedAndIgnored() {
        let stream = Self.closeFrame([0x03, 0xE8]) + clientFrame(.text, "late") + [0xFF, 0xFF, 0x00]
        var decoder = WebSocketDecoder(role: .server, limits: .testDefault)
        #expect(feed([stream], into: &decoder) == DecodeOutcome(events: [.close(1000, [])]))
        #expect(decoder.isClosed)
        #expect(feed([clientFrame(.ping, "x"), [0x00]], into: &decoder) == DecodeOutcome())
    }

    @Test func closeMayInterruptAFragmentedMessage() {
        let stream = clientFrame(.text, "part", fin: false) + Self.closeFrame([0x03, 0xE9])
        #expect(decodeWhole(stream) == DecodeOutcome(events: [.close(1001, [])]))
    }

    @Test func closePayloadEncodesCodeAndReason() {
        #expect(WebSocketFrameEncoder.closePayload(code: 1000, reason: "") == [0x03, 0xE8])
        #expect(WebSocketFrameEncoder.closePayload(code: 4999, reason: "ok") == [0x13, 0x87, 0x6F, 0x6B])
    }

    @Test(arguments: ["a", "é", "€", "😀"])
    func closePayloadTruncatesAtACodePointBoundary(_ unit: String) {
        let reason = String(repeating: unit, count: 200)
        let payload = WebSocketFrameEncoder.closePayload(code: 1001, reason: reason)
        let unitBytes = unit.utf8.count
        #expect(payload.count <= 125)
        #expect(payload.count == 2 + (123 / unitBytes) * unitBytes, "as many whole code points as fit")
        #expect(Array(payload[2...]).withUnsafeBytes { UTF8Validator.isValid($0) })
        // And it decodes as a valid close frame.
        let outcome = decodeWhole(Self.closeFrame(payload))
        #expect(outcome == DecodeOutcome(events: [.close(1001, Array(payload[2...]))]))
    }
}
