/// Base64 (RFC 4648), the project's one implementation: both alphabets, padding chosen explicitly.
///
/// Pure functions, safe from any thread. Decoding is always strict and canonical: a character
/// outside the alphabet (whitespace included), `=` where the padding rule does not put it, a
/// length that cannot occur, or non-zero unused bits in the last character (RFC 4648 §3.5) make
/// it return nil, so every byte string has exactly one accepted encoding. Users:
/// - `Sec-WebSocket-Key`/`-Accept` (RFC 6455 §4): standard alphabet, padded;
/// - JWS segments (RFC 7515 §2): URL alphabet, unpadded;
/// - Standard Webhooks secrets and signatures: standard alphabet, padded (what the reference
///   libraries generate and decode).
public enum Base64 {
    /// Which 64 symbols encode the sextets.
    public enum Alphabet: Sendable {
        /// RFC 4648 §4, Table 1: `A–Z a–z 0–9 + /`.
        case standard
        /// RFC 4648 §5, Table 2 ("base64url"): `A–Z a–z 0–9 - _`.
        case url
    }

    /// Whether encodings end with `=` up to a multiple of 4 characters.
    public enum Padding: Sendable {
        /// The output length is a multiple of 4; decoding requires exactly the canonical padding.
        case padded
        /// No `=` at all; decoding rejects any `=` and a length ≡ 1 (mod 4).
        case unpadded
    }

    /// Encodes `bytes` without line breaks.
    public static func encode(_ bytes: some Collection<UInt8>, alphabet: Alphabet = .standard,
                              padding: Padding = .padded) -> String {
        let symbols = alphabet == .standard ? standardSymbols : urlSymbols
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            let group = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            output.append(symbols[Int(group >> 18 & 0x3F)])
            output.append(symbols[Int(group >> 12 & 0x3F)])
            if b1 != nil {
                output.append(symbols[Int(group >> 6 & 0x3F)])
            } else if padding == .padded {
                output.append(pad)
            }
            if b2 != nil {
                output.append(symbols[Int(group & 0x3F)])
            } else if padding == .padded {
                output.append(pad)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes the canonical encoding of some bytes under `alphabet` and `padding`; nil for
    /// anything else (see the type's documentation). The empty string decodes to `[]`.
    public static func decode(_ text: String, alphabet: Alphabet = .standard,
                              padding: Padding = .padded) -> [UInt8]? {
        var input = Array(text.utf8)
        if padding == .padded {
            guard input.count % 4 == 0 else { return nil }
            // Strip the final group's one or two `=`; a `=` left anywhere else fails the table lookup.
            var padCount = 0
            while padCount < 2, input.last == pad {
                input.removeLast()
                padCount += 1
            }
            if padCount > 0, input.count % 4 != 4 - padCount { return nil }
        }
        return decodeUnpadded(input, table: alphabet == .standard ? standardTable : urlTable)
    }

    private static let pad = UInt8(ascii: "=")
    private static let standardSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let standardTable = decodeTable(standardSymbols)
    private static let urlTable = decodeTable(urlSymbols)

    /// Symbol → sextet; 0xFF marks bytes outside the alphabet (`=` included).
    private static func decodeTable(_ symbols: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in symbols.enumerated() { table[Int(symbol)] = UInt8(value) }
        return table
    }

    private static func decodeUnpadded(_ input: [UInt8], table: [UInt8]) -> [UInt8]? {
        guard input.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var pending = 0
        for symbol in input {
            let value = table[Int(symbol)]
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
