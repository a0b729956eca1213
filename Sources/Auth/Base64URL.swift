import Base64

/// Base64url without padding, the encoding of JWS segments (RFC 7515 §2, RFC 4648 §5).
///
/// The JWS profile of the project's one base64 (`Base64`). Decoding is strict so that every
/// token has exactly one encoding: a JWT whose bytes could be re-encoded differently would let an
/// attacker mint distinct token strings (e.g. for replay caches or deny lists) from one signature.
public enum Base64URL {
    /// Encodes `bytes` as base64url with no `=` padding and no line breaks.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encode(bytes, alphabet: .url, padding: .unpadded)
    }

    /// Decodes unpadded base64url.
    /// - Returns: nil for any character outside `A–Z a–z 0–9 - _` (including `=`, `+`, `/` and
    ///   whitespace), for a length ≡ 1 (mod 4), and for non-zero unused bits in the last
    ///   character (a non-canonical encoding). The empty string decodes to `[]`.
    public static func decode(_ text: String) -> [UInt8]? {
        Base64.decode(text, alphabet: .url, padding: .unpadded)
    }
}
