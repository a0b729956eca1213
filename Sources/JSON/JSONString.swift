/// The project's one JSON string escaper (RFC 8259 §7), byte for byte what Foundation's `JSONEncoder` writes.
///
/// `"` and `\` are backslash-escaped; `\b`, `\f`, `\n`, `\r`, `\t` use their short forms; other U+0000–U+001F become
/// lowercase `\u00xx`; everything else (`/`, DEL and non-ASCII included) is copied as UTF-8, which RFC 8259 §8.1
/// requires readers to accept. Matching Foundation matters: the gateway's hand-written hot-path JSON must give the bytes
/// its encoder gave before (stored idempotency digests are taken over them). Pure functions, safe from any thread.
public enum JSONString {
    /// Appends `string` as a quoted JSON string literal.
    public static func write(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [backslash, UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [backslash, backslash]
            case 0x08: output += [backslash, UInt8(ascii: "b")]
            case 0x0C: output += [backslash, UInt8(ascii: "f")]
            case 0x0A: output += [backslash, UInt8(ascii: "n")]
            case 0x0D: output += [backslash, UInt8(ascii: "r")]
            case 0x09: output += [backslash, UInt8(ascii: "t")]
            case 0..<0x20:
                output += [backslash, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                           hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// `string` as a quoted JSON string literal, as bytes.
    public static func bytes(_ string: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(string.utf8.count + 2)
        write(string, to: &output)
        return output
    }

    /// `string` as a quoted JSON string literal.
    public static func quoted(_ string: String) -> String {
        String(decoding: bytes(string), as: UTF8.self)
    }

    private static let backslash = UInt8(ascii: "\\")
    private static let hexDigits = Array("0123456789abcdef".utf8)
}
