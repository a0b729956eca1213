/// Values of the subset: basic strings, decimal integers, booleans, arrays of strings.
extension TOMLParser {
    mutating func parseValue(key: String, inArray: Bool) throws(ConfigError) -> TOMLValue {
        guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r"), byte != UInt8(ascii: "#") else {
            throw failure("missing value after \"=\"", key: key)
        }
        switch byte {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") {
                throw failure("multi-line strings (\"\"\"...\"\"\") are not supported", key: key)
            }
            return .string(try parseBasicString(key: key))
        case UInt8(ascii: "'"):
            throw failure("literal strings ('...') are not supported; use \"...\"", key: key)
        case UInt8(ascii: "["):
            if inArray { throw failure("nested arrays are not supported", key: key) }
            return .stringArray(try parseStringArray(key: key))
        case UInt8(ascii: "{"):
            throw failure("inline tables ({...}) are not supported; use a [section] header", key: key)
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            if let flag = matchWord("true", value: true) ?? matchWord("false", value: false) { return .boolean(flag) }
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .integer(try parseInteger(key: key))
        default:
            break
        }
        throw failure("invalid value \(describeText(at: index)) (strings must be in double quotes)", key: key)
    }

    /// True when the value that just ended is followed by something that may follow a value.
    private func atValueEnd() -> Bool {
        guard let byte = peek() else { return true }
        return " \t\r\n#,]".utf8.contains(byte)
    }

    private mutating func matchWord(_ word: String, value: Bool) -> Bool? {
        let start = index
        for expected in word.utf8 {
            guard peek() == expected else { index = start; return nil }
            index += 1
        }
        guard atValueEnd() else { index = start; return nil }
        return value
    }

    /// A decimal integer with optional sign and `_` between digits (TOML 1.0 "Integer").
    private mutating func parseInteger(key: String) throws(ConfigError) -> Int {
        let start = index
        var negative = false
        if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") {
            negative = peek() == UInt8(ascii: "-")
            index += 1
        }
        if peek() == UInt8(ascii: "0"), let radix = peek(1), "xob".utf8.contains(radix) {
            throw failure("hexadecimal, octal and binary integers are not supported; write a decimal number", key: key)
        }
        let digitsStart = index
        var magnitude: UInt64 = 0
        var overflow = false
        var previousWasDigit = false
        while let byte = peek() {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                let (shifted, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = shifted.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                magnitude = sum
                overflow = overflow || o1 || o2
                previousWasDigit = true
            } else if byte == UInt8(ascii: "_") {
                guard previousWasDigit, let next = peek(1), next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9") else {
                    throw failure("\"_\" in a number must stand between two digits", key: key)
                }
                previousWasDigit = false
            } else {
                break
            }
            index += 1
        }
        guard index > digitsStart else {
            throw failure("invalid value \(describeText(at: start)) (strings must be in double quotes)", key: key)
        }
        if bytes[digitsStart] == UInt8(ascii: "0") && index - digitsStart > 1 {
            throw failure("leading zeros are not allowed in integers", key: key)
        }
        if !atValueEnd() {
            let next = bytes[index]
            if next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
                throw failure("floating-point numbers are not supported; write an integer", key: key)
            }
            if next == UInt8(ascii: ":") || next == UInt8(ascii: "-") {
                throw failure("dates and times are not supported", key: key)
            }
            throw failure("invalid value \(describeText(at: start)) (strings must be in double quotes)", key: key)
        }
        let limit = negative ? UInt64(Int.max) + 1 : UInt64(Int.max)
        guard !overflow, magnitude <= limit else {
            throw failure("integer \(describeText(at: start)) does not fit in 64 bits", key: key)
        }
        return negative ? Int(truncatingIfNeeded: 0 &- magnitude) : Int(magnitude)
    }

    /// `"..."` on one line with TOML 1.0 escapes: `\b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX`.
    private mutating func parseBasicString(key: String) throws(ConfigError) -> String {
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else {
                throw failure("unterminated string (a string must end with \" on the same line)", key: key)
            }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                // The input is valid UTF-8 and escapes encode valid scalars, so decoding cannot repair anything.
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try appendEscape(to: &utf8, key: key)
            default:
                if byte == 0x7F || (byte < 0x20 && byte != UInt8(ascii: "\t")) {
                    throw failure("control character (0x\(String(byte, radix: 16))) in string; write it as an escape", key: key)
                }
                utf8.append(byte)
            }
        }
    }

    private mutating func appendEscape(to utf8: inout [UInt8], key: String) throws(ConfigError) {
        guard let letter = peek() else { throw failure("unterminated string", key: key) }
        index += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "b"): 0x08, UInt8(ascii: "t"): 0x09, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "f"): 0x0C,
            UInt8(ascii: "r"): 0x0D, UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C,
        ]
        if let byte = simple[letter] {
            utf8.append(byte)
            return
        }
        let digitCount: Int
        switch letter {
        case UInt8(ascii: "u"): digitCount = 4
        case UInt8(ascii: "U"): digitCount = 8
        default:
            throw failure("invalid escape \(describeText(at: index - 2)) in string; use \\\" \\\\ \\n \\t \\r \\b \\f \\uXXXX or \\UXXXXXXXX", key: key)
        }
        var code: UInt32 = 0
        for _ in 0..<digitCount {
            guard let byte = peek(), let digit = Self.hexValue(byte) else {
                throw failure("escape \\\(Character(Unicode.Scalar(letter))) needs \(digitCount) hexadecimal digits", key: key)
            }
            code = code << 4 | digit
            index += 1
        }
        guard let scalar = Unicode.Scalar(code) else {
            throw failure("escape \(describeText(at: index - digitCount - 2)) is not a Unicode scalar value", key: key)
        }
        utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// `["a", "b"]`; may span lines, with comments and a trailing comma, as TOML 1.0 allows.
    private mutating func parseStringArray(key: String) throws(ConfigError) -> [String] {
        let startLine = line
        index += 1
        var items: [String] = []
        while true {
            try skipArrayFiller(key: key, startLine: startLine)
            if peek() == UInt8(ascii: "]") { index += 1; return items }
            let itemLine = line
            guard case .string(let item) = try parseValue(key: key, inArray: true) else {
                throw failure("only arrays of strings are supported", key: key, line: itemLine)
            }
            items.append(item)
            try skipArrayFiller(key: key, startLine: startLine)
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return items
            default: throw failure("expected \",\" or \"]\" in array, found \(describeText(at: index))", key: key)
            }
        }
    }

    /// Spaces, line breaks and comments between array elements.
    private mutating func skipArrayFiller(key: String, startLine: Int) throws(ConfigError) {
        while true {
            skipSpaces()
            switch peek() {
            case nil: throw failure("unterminated array (opened on line \(startLine))", key: key, line: startLine)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try consumeNewline()
            case UInt8(ascii: "#"): try skipComment()
            default: return
            }
        }
    }
}
