import COpenSSL

/// SHA-256 (OpenSSL), the project's one digest: secrets stored only as digests (API keys, standalone device secrets),
/// hashed phone numbers in contact discovery and idempotency request digests.
public enum SecretDigest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in _ = SHA256(input.baseAddress, input.count, out.baseAddress) }
        }
        return output
    }

    /// Lowercase hex of the SHA-256 of the text's UTF-8 bytes (how the store keeps device secrets).
    public static func sha256Hex(_ text: String) -> String { sha256Hex(Array(text.utf8)) }

    /// Lowercase hex of the SHA-256 of `bytes`.
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        sha256(bytes).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
