/// Extracts credentials from an HTTP `Authorization` header value (RFC 6750 §2.1).
/// Stateless and thread-safe.
public enum BearerToken {
    /// Longest credential accepted; matches ``JWTVerifier/maximumTokenLength`` so oversized
    /// headers are refused before any parsing.
    public static let maximumLength = JWTVerifier.maximumTokenLength

    /// The credential from `Bearer <token>`: the scheme is case-insensitive (RFC 9110 §11.1),
    /// separated by one or more spaces, and the token must be non-empty `token68` characters
    /// (RFC 9110 §11.2: `A–Z a–z 0–9 - . _ ~ + /` then optional trailing `=`).
    /// - Returns: nil for any other scheme, an empty or over-long token, or characters outside
    ///   token68 (including embedded spaces and commas).
    public static func parse(authorization value: String) -> String? {
        let bytes = Array(value.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count, bytes.count <= scheme.count + 1 + maximumLength + 64 else { return nil }
        for (offset, expected) in scheme.enumerated() where bytes[offset] | 0x20 != expected {
            return nil
        }
        var index = scheme.count
        guard bytes[index] == UInt8(ascii: " ") else { return nil }
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        // Trailing whitespace is already stripped by HTTP field parsing (RFC 9110 §5.5).
        let token = bytes[index...]
        guard !token.isEmpty, token.count <= maximumLength, isToken68(token) else { return nil }
        return String(decoding: token, as: UTF8.self)
    }

    private static func isToken68(_ token: ArraySlice<UInt8>) -> Bool {
        var seenPadding = false
        for byte in token {
            if byte == UInt8(ascii: "=") {
                seenPadding = true
                continue
            }
            if seenPadding { return false }
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
                 UInt8(ascii: "+"), UInt8(ascii: "/"):
                continue
            default:
                return false
            }
        }
        // All '=' is not a token.
        return token.first != UInt8(ascii: "=")
    }
}
