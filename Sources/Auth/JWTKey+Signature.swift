/// Signature creation and checking, dispatched on the key's pinned algorithm. Safe to call
/// concurrently on a shared key.
extension JWTKey {
    /// The JWS signature (RFC 7515 §5.1 step 5) of `signingInput` — the ASCII bytes
    /// `base64url(header) "." base64url(payload)`.
    /// - Throws: `invalid_key` for an EC public key, an empty HMAC secret, or an OpenSSL failure.
    func signature(for signingInput: [UInt8]) throws(JWTError) -> [UInt8] {
        switch material {
        case .secret(let secret):
            return try HMACSHA256.authenticate(signingInput, key: secret)
        case .ec(let handle):
            guard handle.hasPrivateKey else {
                throw .make(JWTError.invalidKey, "an ES256 public key cannot sign; load the private key")
            }
            return try ECDSAP256.sign(signingInput, key: handle.pointer)
        }
    }

    /// Whether `signature` is valid for `signingInput` under this key (RFC 7515 §5.2 step 8).
    /// HMAC tags are compared in constant time; ES256 signatures must be 64-byte R‖S.
    /// - Throws: `invalid_key` only for an empty HMAC secret (which must never validate).
    func isValidSignature(_ signature: [UInt8], for signingInput: [UInt8]) throws(JWTError) -> Bool {
        switch material {
        case .secret(let secret):
            return try HMACSHA256.verify(signature, message: signingInput, key: secret)
        case .ec(let handle):
            return ECDSAP256.verify(signature, message: signingInput, key: handle.pointer)
        }
    }
}
