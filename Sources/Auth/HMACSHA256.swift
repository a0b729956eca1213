import COpenSSL

/// HMAC-SHA-256 (RFC 2104 with SHA-256; JWS HS256, RFC 7518 §3.2) via OpenSSL's one-shot `HMAC`.
/// Stateless and thread-safe.
enum HMACSHA256 {
    /// Tag length in bytes (SHA-256 output).
    static let tagLength = 32

    /// The 32-byte tag of `message` under `key`.
    /// - Throws: `invalid_key` for an empty key (see ``JWTKey/hmac(secret:keyID:)``) or if
    ///   OpenSSL fails.
    static func authenticate(_ message: [UInt8], key: [UInt8]) throws(JWTError) -> [UInt8] {
        guard !key.isEmpty, key.count <= Int32.max else {
            throw .make(JWTError.invalidKey, "HS256 secret is empty")
        }
        var tag = [UInt8](repeating: 0, count: tagLength)
        var tagLength: UInt32 = 0
        let ok = key.withUnsafeBufferPointer { keyBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                tag.withUnsafeMutableBufferPointer { tagBuffer in
                    HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count),
                         messageBuffer.baseAddress, messageBuffer.count,
                         tagBuffer.baseAddress, &tagLength) != nil
                }
            }
        }
        guard ok, Int(tagLength) == HMACSHA256.tagLength else {
            ERR_clear_error()
            throw .make(JWTError.invalidKey, "HMAC-SHA-256 failed")
        }
        return tag
    }

    /// Whether `tag` is the tag of `message` under `key`, compared in constant time so response
    /// timing does not reveal how many leading bytes of a forged tag were right.
    static func verify(_ tag: [UInt8], message: [UInt8], key: [UInt8]) throws(JWTError) -> Bool {
        let expected = try authenticate(message, key: key)
        return ConstantTime.equals(expected, tag)
    }
}
