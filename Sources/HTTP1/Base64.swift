/// RFC 4648 §4 base64 with the standard alphabet and `=` padding.
///
/// Pure functions, safe from any thread. Used for `Sec-WebSocket-Key`/`-Accept` (RFC 6455 §4).
public enum Base64 {
    /// RFC 4648 §4, Table 1.
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let padding = UInt8(ascii: "=")

    /// Encodes `bytes` with padding (RFC 4648 §4); the output length is always a multiple of 4.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            let group = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(b1 == nil ? padding : alphabet[Int(group >> 6 & 0x3F)])
            output.append(b2 == nil ? padding : alphabet[Int(group & 0x3F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Strict decoder: returns nil unless `string` is canonical padded base64.
    ///
    /// Rejects: a length that is not a multiple of 4, any character outside the alphabet
    /// (whitespace included), `=` anywhere but the last one or two positions, and non-zero
    /// pad bits (RFC 4648 §3.5), so every byte string has exactly one accepted encoding.
    public static func decode(_ string: String) -> [UInt8]? {
        let input = Array(string.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLastGroup = index + 4 == input.count
            var group: UInt32 = 0
            var padCount = 0
            for offset in 0..<4 {
                let char = input[index + offset]
                if char == padding {
                    // Padding may only fill positions 2 and 3 of the final group.
                    guard isLastGroup, offset >= 2 else { return nil }
                    padCount += 1
                    group <<= 6
                    continue
                }
                guard padCount == 0, let value = sextet(char) else { return nil }
                group = group << 6 | UInt32(value)
            }
            output.append(UInt8(group >> 16 & 0xFF))
            switch padCount {
            case 0:
                output.append(UInt8(group >> 8 & 0xFF))
                output.append(UInt8(group & 0xFF))
            case 1:
                guard group & 0xFF == 0 else { return nil }
                output.append(UInt8(group >> 8 & 0xFF))
            default:
                guard group & 0xFFFF == 0 else { return nil }
            }
            index += 4
        }
        return output
    }

    private static func sextet(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return char - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return char - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return char - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
