/// Minimal JSON string escaping (RFC 8259 §7) for the error bodies this module writes.
enum JSONString {
    /// `string` as a quoted JSON string literal. Quotes, backslashes and all control
    /// characters are escaped; other characters (non-ASCII included) are emitted as UTF-8,
    /// which RFC 8259 §8.1 requires readers to accept.
    static func quoted(_ string: String) -> String {
        var output: [UInt8] = [UInt8(ascii: "\"")]
        output.reserveCapacity(string.utf8.count + 2)
        let hex = Array("0123456789abcdef".utf8)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20, 0x7F:
                // DEL is legal in JSON but escaping it keeps logs and terminals clean.
                output += Array("\\u00".utf8)
                output += [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
        return String(decoding: output, as: UTF8.self)
    }
}
