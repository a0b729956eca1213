import COpenSSL

/// SHA-256 (OpenSSL) of secrets that are stored only as digests: API keys, standalone device secrets.
public enum SecretDigest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in _ = SHA256(input.baseAddress, input.count, out.baseAddress) }
        }
        return output
    }

    /// Lowercase hex of the SHA-256 of the text's UTF-8 bytes (how the store keeps device secrets).
    public static func sha256Hex(_ text: String) -> String {
        sha256(Array(text.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
