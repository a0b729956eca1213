/// The JWS algorithms Switchboard accepts (RFC 7518 §3.1 names).
///
/// Deliberately closed: `none` and every other algorithm are refused, and a ``JWTKey`` pins
/// exactly one of these so a token can never choose how it is checked.
public enum JWTAlgorithm: String, Sendable {
    /// HMAC with SHA-256 over a shared secret (RFC 7518 §3.2).
    case hs256 = "HS256"
    /// ECDSA with P-256 and SHA-256; signature is the 64-byte R‖S form (RFC 7518 §3.4).
    case es256 = "ES256"
}
