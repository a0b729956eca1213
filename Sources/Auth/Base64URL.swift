/// Base64url without padding, as JWS uses it (RFC 7515 §2, RFC 4648 §5).
///
/// Stateless and thread-safe. Decoding is strict so that every token has exactly one encoding:
/// a JWT whose bytes could be re-encoded differently would let an attacker mint distinct token
/// strings (e.g. for replay caches or deny lists) from one signature.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks bytes outside the base64url alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in alphabet.enumerated() { table[Int(symbol)] = UInt8(value) }
        return table
    }()

    /// Encodes `bytes` as base64url with no `=` padding and no line breaks.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            if second != nil { output.append(alphabet[Int(group >> 6 & 0x3F)]) }
            if third != nil { output.append(alphabet[Int(group & 0x3F)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64url.
    /// - Returns: nil for any character outside `A–Z a–z 0–9 - _` (including `=`, `+`, `/` and
    ///   whitespace), for a length ≡ 1 (mod 4), and for non-zero unused bits in the last
    ///   character (a non-canonical encoding). The empty string decodes to `[]`.
    public static func decode(_ s: String) -> [UInt8]? {
        let input = s.utf8
        let remainder = input.count % 4
        guard remainder != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var pending = 0
        for symbol in input {
            let value = decodeTable[Int(symbol)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            pending += 1
            if pending == 4 {
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                output.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                pending = 0
            }
        }
        switch pending {
        case 2:
            // 12 bits carry 8: the low 4 must be zero.
            guard accumulator & 0x0F == 0 else { return nil }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            // 18 bits carry 16: the low 2 must be zero.
            guard accumulator & 0x03 == 0 else { return nil }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            break
        }
        return output
    }
}
