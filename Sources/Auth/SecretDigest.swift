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
        // Written into one buffer: a `String(radix:)` per byte and a join cost more than the digest (one per
        // idempotent direct message).
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in sha256(bytes) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
