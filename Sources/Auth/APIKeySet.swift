import COpenSSL

/// The API keys app backends may present to Switchboard's HTTP API, kept only as SHA-256
/// digests so a memory dump or a logged configuration object does not leak usable keys.
///
/// Immutable and `Sendable`. Matching hashes the presented key once and compares the digest with
/// every stored digest in constant time, without stopping at a match: timing reveals neither how
/// close a guess was nor which key matched. Keys are high-entropy random strings (32+ random
/// bytes, e.g. base64url), so an unsalted fast hash is adequate; it is not a password store.
public struct APIKeySet: Sendable {
    /// SHA-256 digest length in bytes.
    public static let digestLength = 32

    private let entries: [(name: String, digest: [UInt8])]

    /// Accepts `keys`, a map from a key's name (for logs and metrics; never secret) to the key.
    /// Empty keys are ignored so a missing configuration value cannot match an empty header.
    public init(keys: [String: String]) {
        entries = keys.sorted { $0.key < $1.key }
            .filter { !$0.value.isEmpty }
            .map { (name: $0.key, digest: APIKeySet.digest($0.value)) }
    }

    /// Accepts keys given as SHA-256 digests (see ``digest(_:)``), so configuration files need not
    /// hold the keys themselves.
    /// - Throws: `invalid_key` if a digest is not exactly ``digestLength`` bytes (the error names
    ///   the entry, never its bytes).
    public init(sha256Digests: [String: [UInt8]]) throws(JWTError) {
        for (name, digest) in sha256Digests where digest.count != APIKeySet.digestLength {
            throw .make(JWTError.invalidKey, "API key \(name) digest is not \(APIKeySet.digestLength) bytes")
        }
        entries = sha256Digests.sorted { $0.key < $1.key }.map { (name: $0.key, digest: $0.value) }
    }

    /// The number of configured keys.
    public var count: Int { entries.count }

    /// The name of the configured key equal to `presented`, or nil when none is (or `presented`
    /// is empty). Runs in time independent of which key, if any, matched.
    public func match(_ presented: String) -> String? {
        guard !presented.isEmpty else { return nil }
        let digest = APIKeySet.digest(presented)
        var matched: String? = nil
        for entry in entries {
            // No break: every entry is compared whatever the outcome.
            if ConstantTime.equals(entry.digest, digest) { matched = entry.name }
        }
        return matched
    }

    /// SHA-256 of the key's UTF-8 bytes (FIPS 180-4), for storing keys as digests.
    public static func digest(_ key: String) -> [UInt8] { SecretDigest.sha256(Array(key.utf8)) }
}
