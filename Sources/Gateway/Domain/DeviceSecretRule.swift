import GatewayProtocol

/// What a standalone device secret (`deviceToken` of `POST /v1/devices/register`) must look like before it is hashed.
///
/// The secret alone is the identity: whoever sends the same secret gets the same user, from any address. A short or
/// repetitive secret is therefore an account another installation can land in by accident or by guessing. The rule
/// refuses what is obviously weak (too short, or made of few distinct characters); it cannot measure randomness, which
/// stays the app's job (docs/PROTOCOL.md asks for 128 random bits: 32 hex digits, 22 base64 characters or a UUID).
public enum DeviceSecretRule {
    /// Fewest UTF-8 bytes a secret may have: 16 bytes is 128 bits only if every byte is random, so this is a floor
    /// that catches passwords and counters, not a guarantee.
    public static let minBytes = 16
    /// Most UTF-8 bytes: the secret is only hashed, a longer one buys nothing.
    public static let maxBytes = 512
    /// Fewest distinct characters (Unicode scalars): refuses `"aaaaaaaaaaaaaaaa"` and `"abababababababab"`, while 32
    /// random hex digits have fewer than 8 distinct ones with a probability below 10⁻⁸.
    public static let minDistinctCharacters = 8

    /// nil when `secret` may be registered; otherwise the error to answer with: `invalid_field` for an empty or
    /// oversized value, `device_token_too_weak` for one too short or too repetitive to be a secret.
    public static func check(_ secret: String) -> GatewayError? {
        let bytes = secret.utf8.count
        guard bytes > 0, bytes <= maxBytes else {
            return GatewayError(.invalidField, "deviceToken must have 1 to \(maxBytes) bytes")
        }
        guard bytes >= minBytes else {
            return GatewayError(.deviceTokenTooWeak, "deviceToken must have at least \(minBytes) bytes (got \(bytes)); use 128 random bits")
        }
        let distinct = Set(secret.unicodeScalars).count
        guard distinct >= minDistinctCharacters else {
            return GatewayError(.deviceTokenTooWeak,
                                "deviceToken must have at least \(minDistinctCharacters) distinct characters (got \(distinct)); use 128 random bits")
        }
        return nil
    }
}
