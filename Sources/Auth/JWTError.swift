/// Why a token was rejected, a key could not be loaded, or signing failed.
///
/// `code` is stable and meant for programs (metrics labels, close reasons, HTTP error bodies);
/// `message` is for humans and logs. Neither ever contains the token, a signature, a secret or
/// key material, so both are safe to log and to return to the client.
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One of the stable codes listed as static constants on this type (`JWTError.malformed`…).
    public var code: String
    /// Human-readable detail; never contains the token or key material.
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// `"code: message"`.
    public var description: String { "\(code): \(message)" }

    /// Not three base64url parts, undecodable base64url, header or payload not a JSON object,
    /// a registered claim of the wrong type, or an over-long token.
    public static let malformed = "malformed"
    /// `alg` is not HS256/ES256 (including every spelling of `none`), or the header carries
    /// `crit` (RFC 7515 §4.1.11: extensions we do not implement must make the token invalid).
    public static let unsupportedAlgorithm = "unsupported_algorithm"
    /// The key selected for the token (by `kid`, or all keys) is pinned to a different algorithm.
    public static let algorithmMismatch = "algorithm_mismatch"
    /// No configured key has the token's `kid`, or no keys are configured.
    public static let unknownKey = "unknown_key"
    /// The signature does not verify with any candidate key (includes wrong-length and DER ES256
    /// signatures, and tampered headers or payloads).
    public static let badSignature = "bad_signature"
    /// `exp` + leeway is before `now`.
    public static let expired = "expired"
    /// `nbf` − leeway is after `now`.
    public static let notYetValid = "not_yet_valid"
    /// `aud` does not contain the verifier's audience.
    public static let wrongAudience = "wrong_audience"
    /// `iss` differs from the verifier's issuer.
    public static let wrongIssuer = "wrong_issuer"
    /// A required claim (`exp` when required, `aud`/`iss` when the verifier checks them) is absent.
    public static let missingClaim = "missing_claim"
    /// A key could not be loaded (bad PEM, not P-256, encrypted), or cannot do what was asked
    /// (signing with a public key, empty HMAC secret).
    public static let invalidKey = "invalid_key"

    static func make(_ code: String, _ message: String) -> JWTError {
        JWTError(code: code, message: message)
    }
}
