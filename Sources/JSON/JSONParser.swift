/// A strict RFC 8259 recursive-descent parser over a byte buffer.
///
/// Not `Foundation.JSONDecoder`: that keeps the *first* of two duplicate member names and accepts
/// trailing commas, and a JWT verifier must not read claims differently from the issuer
/// (RFC 7519 §4 requires rejecting duplicates or taking the last one; we reject).
/// Single-use, single-thread value type.
struct JSONParser {
    /// Deepest array/object nesting accepted; JOSE headers and claim sets are shallow, and a bound
    /// keeps hostile input from exhausting the stack.
    static let maximumDepth = 32

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses the whole buffer as exactly one JSON value surrounded by optional whitespace.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("trailing data after the JSON value") }
        return value
    }

    private func fail(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    // RFC 8259 §2: ws = *( %x20 / %x09 / %x0A / %x0D )
    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            index += 1
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw fail("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
        let expected = literal.utf8
        guard bytes[index...].starts(with: expected) else { throw fail("invalid literal") }
        index += expected.count
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONParser.maximumDepth else { throw fail("nesting deeper than \(JSONParser.maximumDepth)") }
        index += 1
        skipWhitespace()
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var members: [String: JSONValue] = [:]
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            guard current == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let nameOffset = index
            let name = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            guard members.updateValue(value, forKey: name) == nil else {
                throw JSONParseError(offset: nameOffset, reason: "duplicate member name")
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default:
                throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default:
                throw fail("expected ',' or ']'")
            }
        }
    }

    /// RFC 8259 §6 grammar, checked here because `Double(String)` also accepts "inf", "0x1p3"…
    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var integral = true
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else if skipDigits() == 0 {
            throw fail("invalid number")
        }
        if current == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard skipDigits() > 0 else { throw fail("invalid number") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw fail("invalid number") }
        }
        if integral, let value = wholeNumber(from: start) { return .int(value) }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError(offset: start, reason: "number out of range")
        }
        // An integer literal beyond Int64 stays a Double: -9223372036854775809 rounds to exactly -2^63 as a Double,
        // and must not come back as the different integer Int64.min.
        if integral { return .number(value) }
        return JSONValue.exactInt64(value).map(JSONValue.int) ?? .number(value)
    }

    /// The integer in `bytes[start..<index]` (grammar already checked: `-?digits`), or nil when it does not fit in
    /// `Int64`. Accumulated in place: most numbers in commands are offsets and ids, and a `String` per number was
    /// a good part of parsing them.
    private func wholeNumber(from start: Int) -> Int64? {
        var position = start
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var value: Int64 = 0
        while position < index {
            let digit = Int64(bytes[position] &- UInt8(ascii: "0"))
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            // Negative numbers accumulate downwards so Int64.min fits.
            let (next, overflowB) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { return nil }
            value = next
            position += 1
        }
        return value
    }

    private mutating func skipDigits() -> Int {
        let start = index
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        // Most strings have no escape: validate and copy the slice once, without building a buffer byte by byte.
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let string = String(validating: bytes[start..<(index - 1)], as: UTF8.self) else {
                    throw fail("string is not valid UTF-8")
                }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("unescaped control character in string") }
            index += 1
        }
        var utf8 = Array(bytes[start..<index])
        while true {
            guard let byte = current else { throw fail("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                // Escapes only ever append valid UTF-8, so a failure here is raw invalid input.
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw fail("string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &utf8)
            case 0x00..<0x20:
                throw fail("unescaped control character in string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    // RFC 8259 §7 escapes.
    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw fail("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { throw fail("lone surrogate") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw fail("lone surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw fail("lone surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid code point") }
            utf8.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw fail("invalid escape")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
