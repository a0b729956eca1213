// Byte-level helpers shared by the parsers and header lookups.
// Everything here is ASCII-only on purpose: HTTP field names and tokens are ASCII
// (RFC 9110 §5.1, §5.6.2), and avoiding Unicode-aware comparison keeps the hot path cheap.

enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let comma: UInt8 = 0x2C
    static let semicolon: UInt8 = 0x3B

    /// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
    /// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
             UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// RFC 9110 §5.5: field-vchar = VCHAR / obs-text, plus SP and HTAB inside a value.
    static func isFieldValueChar(_ byte: UInt8) -> Bool {
        byte == space || byte == tab || (byte >= 0x21 && byte != 0x7F)
    }

    /// Visible ASCII (VCHAR, RFC 5234 Appendix B.1): what a request-target may contain.
    static func isVisible(_ byte: UInt8) -> Bool {
        byte >= 0x21 && byte <= 0x7E
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Value of a hex digit, or nil.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }

    /// ASCII case-insensitive equality; non-ASCII bytes must match exactly.
    static func equalsIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case let (l?, r?) where lowercased(l) == lowercased(r): continue
            default: return false
            }
        }
    }

    /// `string` without leading and trailing SP/HTAB (RFC 9110 §5.6.3 OWS).
    static func trimmingWhitespace(_ string: Substring) -> Substring {
        var slice = string
        while let first = slice.utf8.first, isWhitespace(first) { slice = slice.dropFirst() }
        while let last = slice.utf8.last, isWhitespace(last) { slice = slice.dropLast() }
        return slice
    }

    /// Splits a comma-separated list value (RFC 9110 §5.6.1), trimming OWS and dropping empty elements.
    static func listElements(_ value: String) -> [Substring] {
        value.split(separator: ",", omittingEmptySubsequences: false)
            .map { trimmingWhitespace($0) }
            .filter { !$0.isEmpty }
    }
}
