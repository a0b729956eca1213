import FoundationEssentials
@testable import Gateway
import GatewayProtocol
import JSON
import Testing

/// The hand-written JSON of the types every direct message encodes must be byte for byte what Foundation's encoder
/// (sorted keys, slashes unescaped) wrote before: stored idempotency digests and responses depend on the bytes.
@Suite struct HotPathJSONTests {
    static func foundation(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try! encoder.encode(value))
    }

    /// Every ASCII character alone and inside text, and non-ASCII that JSON encoders are known to treat differently.
    static let texts: [String] = (0..<128).map { String(UnicodeScalar(UInt8($0))) } + (0..<128).map { "a\(UnicodeScalar(UInt8($0)))b" }
        + ["", "é", "日本語", "🙂 emoji", "\u{2028}\u{2029}", "\u{7F}", "\u{FEFF}bom", "a/b\\c\"d", "tab\tnew\nline\r", "\u{0}\u{1F}"]

    @Test func stringsAreEscapedAsFoundationDoes() {
        for text in Self.texts {
            #expect(JSONString.bytes(text) == Self.foundation(text), "\(Array(text.unicodeScalars.map(\.value)))")
        }
    }
}

extension HotPathJSONTests {
    @Test func messageEventsRepliesAndRequestsAreWrittenAsFoundationWroteThem() {
        for text in Self.texts {
            for name in [nil, "Ann \(text)"] {
                let event = MessageData(messageId: 42, from: "u\(text)1", to: "u/2", text: text, sentAt: 1_700_000_000_123,
                                        fromDisplayName: name)
                #expect(ServerFrames.encode(event) == Self.foundation(event))
            }
            // The request digest used to be taken over a dictionary; the struct must give the same bytes.
            #expect(ServerFrames.encode(MessageRequest(to: "bob\(text)", text: text)) == Self.foundation(["to": "bob\(text)", "text": text]))
        }
        for (id, at) in [(Int64(1), Int64(0)), (Int64.max, Int64.min), (-5, 1_700_000_000_000)] {
            let sent = SentMessage(messageId: id, sentAt: at)
            #expect(ServerFrames.encode(sent) == Self.foundation(sent))
            #expect(ServerFrames.ok(id: "c1", result: sent) == Array(#"{"type":"reply","id":"c1","ok":true,"result":"#.utf8) + Self.foundation(sent) + [UInt8(ascii: "}")])
        }
    }
}

extension HotPathJSONTests {
    @Test func integersAreWrittenAsTheirDecimalText() {
        for value: Int64 in [0, 1, -1, 9, 10, -10, 99, 100, 1_700_000_000_123, .max, .min, .max - 1, .min + 1] {
            var out = Array("x".utf8)
            JSONInteger.write(value, to: &out)
            #expect(out == Array("x\(value)".utf8))
        }
        #expect(ServerFrames.event(type: "message", offset: 7, timestamp: -3, data: Array("{}".utf8))
            == Array(#"{"type":"message","offset":7,"ts":-3,"data":{}}"#.utf8))
        #expect(ServerFrames.event(type: "presence", offset: nil, timestamp: 0, data: Array("{}".utf8))
            == Array(#"{"type":"presence","ts":0,"data":{}}"#.utf8))
        #expect(ServerFrames.error(id: nil, GatewayError(.invalidJSON, "x")).starts(with: Array(#"{"type":"reply","id":null,"ok":false,"error":{"#.utf8)))
    }
}
