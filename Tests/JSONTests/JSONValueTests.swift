import JSON
import Foundation
import Testing

@Suite struct JSONValueTests {
    private func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONValue.parse(Array(text.utf8))
    }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(
            #" {"s":"x\"\\\/\n\u00e9\ud83d\ude00","i":-42,"d":1.5,"t":true,"f":false,"n":null,"a":[1,[]],"o":{}} "#)
        #expect(
            value
                == .object([
                    "s": .string("x\"\\/\né😀"), "i": .int(-42), "d": .number(1.5), "t": .bool(true),
                    "f": .bool(false), "n": .null, "a": .array([.int(1), .array([])]), "o": .object([:])
                ]))
    }

    @Test func integralNumbersThatFitAreInts() throws {
        #expect(try parse("1.0") == .int(1))
        #expect(try parse("1e3") == .int(1000))
        #expect(try parse("-0") == .int(0))
        #expect(try parse("9223372036854775807") == .int(.max))
        #expect(try parse("-9223372036854775808") == .int(.min))
        #expect(try parse("9223372036854775808") == .number(9_223_372_036_854_775_808))
        // One below Int64.min rounds to exactly -2^63 as a Double; it must not become the other integer Int64.min.
        #expect(try parse("-9223372036854775809") == .number(-9_223_372_036_854_775_808))
        #expect(try parse("[0,-7,1234567890123]") == .array([.int(0), .int(-7), .int(1_234_567_890_123)]))
        #expect(try parse("0.25") == .number(0.25))
        #expect(try parse("1E-2") == .number(0.01))
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#, #"{"a":1,}"#, "[1,]", "01", "1.", ".5", "-", "+1", "1e", "NaN", "Infinity",
        "1e400", "tru", "nul", #"{'a':1}"#, #"{"a" 1}"#, #"{"a":1} x"#, "[1] [2]", "", "   ",
        #""\ud800""#, #""\udc00x""#, #""\x""#, #""\u12g4""#, "\"a\u{01}b\"", #""abc"#, "{", "[",
        "[1 2]", #"{"a":1 "b":2}"#, #"{1:2}"#
    ])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: JSONParseError.self) { try parse(text) }
    }

    @Test func rejectsInvalidUTF8AndTooDeepNesting() throws {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
        // The same before an escape (the copy-free path hands over to the escaping one) and after one.
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x5C, 0x6E, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22]) }
        #expect(try JSONValue.parse([0x22, 0xC3, 0xA9, 0x5C, 0x6E, 0xC3, 0xA9, 0x22]) == .string("é\né"))
        #expect(throws: JSONParseError.self) {
            try parse(String(repeating: "[", count: 33) + String(repeating: "]", count: 33))
        }
        #expect((try? parse(String(repeating: "[", count: 32) + String(repeating: "]", count: 32))) != nil)
    }

    @Test func reportsTheOffsetOfADuplicateName() {
        #expect(throws: JSONParseError(offset: 7, reason: "duplicate member name")) {
            try parse(#"{"a":1,"a":2}"#)
        }
    }

    @Test func serializesCompactlyWithSortedNamesAndEscapes() throws {
        let value = JSONValue.object([
            "b": .array([.int(1), .number(0.5), .bool(false), .null]),
            "a": .string("q\"\\/\n\u{01}é"),
            "c": .number(2.0)
        ])
        let text = String(decoding: try value.serialized(), as: UTF8.self)
        #expect(text == #"{"a":"q\"\\/\n\u0001é","b":[1,0.5,false,null],"c":2}"#)
        #expect(
            try JSONValue.parse(try value.serialized())
                == .object([
                    "b": .array([.int(1), .number(0.5), .bool(false), .null]),
                    "a": .string("q\"\\/\n\u{01}é"), "c": .int(2)
                ]))
        #expect(throws: JSONParseError.self) { try JSONValue.number(.nan).serialized() }
        #expect(throws: JSONParseError.self) { try JSONValue.array([.number(.infinity)]).serialized() }
    }

    /// The serializer and every hand-written JSON writer share `JSONString`, which must escape as Foundation's encoder
    /// does (`\b` and `\f` short forms, `/` and DEL unescaped).
    @Test func stringsAreEscapedAsFoundationsEncoderEscapesThem() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let texts = (0..<128).map { "a\(UnicodeScalar(UInt8($0)))b" } + ["", "é", "🙂", "\u{2028}\u{2029}", "\u{FEFF}"]
        for text in texts {
            let foundation = Array(try encoder.encode(text))
            #expect(try JSONValue.string(text).serialized() == foundation, "\(Array(text.unicodeScalars.map(\.value)))")
            #expect(JSONString.bytes(text) == foundation)
            #expect(JSONString.quoted(text) == String(decoding: foundation, as: UTF8.self))
        }
        #expect(JSONString.quoted("\u{8}\u{C}\u{7F}/") == "\"\\b\\f\u{7F}/\"")
    }

    @Test func randomValuesRoundTripThroughTextAndFoundationsDecoder() throws {
        var generator = SystemRandomNumberGenerator()
        func randomValue(depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator) {
            case 0: return .string(String((0..<Int.random(in: 0..<6)).map { _ in "aé\"\\\n😀/".randomElement()! }))
            case 1: return .int(Int64.random(in: .min ... .max, using: &generator))
            case 2: return .number(Double(Int.random(in: -1000...1000)) + 0.5)
            case 3: return .bool(Bool.random(using: &generator))
            case 4: return .null
            case 5: return .array((0..<Int.random(in: 0..<4)).map { _ in randomValue(depth: depth + 1) })
            default:
                var members: [String: JSONValue] = [:]
                for index in 0..<Int.random(in: 0..<4) { members["k\(index)"] = randomValue(depth: depth + 1) }
                return .object(members)
            }
        }
        for _ in 0..<200 {
            let value = randomValue(depth: 0)
            let bytes = try value.serialized()
            #expect(try JSONValue.parse(bytes) == value)
            // Codable conformance agrees with the strict parser on well-formed input.
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)) == value)
            let reencoded = try JSONEncoder().encode(value)
            #expect(try JSONValue.parse([UInt8](reencoded)) == value)
        }
    }
}
