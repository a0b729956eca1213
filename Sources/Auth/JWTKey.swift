import COpenSSL

/// A verification or signing key. The algorithm is PINNED by the key: the token header's `alg`
/// must equal it, never chosen from the header.
///
/// Immutable after creation and safe to share between threads: the HMAC secret is a value, and the
/// EC key is an OpenSSL `EVP_PKEY` that is only ever used read-only (each sign/verify creates its
/// own `EVP_MD_CTX`), which OpenSSL 3 documents as thread-safe. The `EVP_PKEY` is freed when the
/// last copy of the key goes away.
public struct JWTKey: @unchecked Sendable {
    // @unchecked: holds an `EVP_PKEY` used read-only after init (see above).
    /// The one algorithm this key signs and verifies with.
    public let algorithm: JWTAlgorithm
    /// The `kid` this key answers to; nil keys are only tried for tokens without a `kid`.
    public let keyID: String?

    let material: Material

    enum Material {
        case secret([UInt8])
        case ec(ECKeyHandle)
    }

    private init(algorithm: JWTAlgorithm, keyID: String?, material: Material) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.material = material
    }

    /// An HS256 key over `secret`.
    ///
    /// RFC 7518 §3.2 requires a key at least as long as the hash output: use 32 or more random
    /// bytes. Shorter secrets are accepted (some backends have them) but are brute-forceable offline
    /// from any single token. An empty secret is accepted here but signing and verifying with it
    /// always fail with `invalid_key`, so a missing configuration value can never validate tokens.
    public static func hmac(secret: [UInt8], keyID: String? = nil) -> JWTKey {
        JWTKey(algorithm: .hs256, keyID: keyID, material: .secret(secret))
    }

    /// An ES256 verification key from a P-256 SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    /// - Throws: `invalid_key` when there is no such PEM block, it does not parse, or the key is
    ///   not EC on P-256 (RFC 7518 §3.4 pins ES256 to P-256).
    public static func ecPublicKey(pem: String, keyID: String? = nil) throws(JWTError) -> JWTKey {
        let pointer = try withPEMBIO(pem) { bio in PEM_read_bio_PUBKEY(bio, nil, refusePassphrase, nil) }
        let handle = try ECKeyHandle(adopting: pointer, hasPrivateKey: false, kind: "public key")
        return JWTKey(algorithm: .es256, keyID: keyID, material: .ec(handle))
    }

    /// An ES256 signing key from an unencrypted PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`, the
    /// format of Apple's `.p8` files) or SEC1 (`BEGIN EC PRIVATE KEY`). It can also verify.
    /// - Throws: `invalid_key` when the PEM does not parse, is encrypted (never prompts for a
    ///   passphrase), or is not an EC key on P-256.
    public static func ecPrivateKey(pem: String, keyID: String? = nil) throws(JWTError) -> JWTKey {
        let pointer = try withPEMBIO(pem) { bio in PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil) }
        let handle = try ECKeyHandle(adopting: pointer, hasPrivateKey: true, kind: "private key")
        return JWTKey(algorithm: .es256, keyID: keyID, material: .ec(handle))
    }

    /// True for HMAC keys and EC private keys; false for EC public keys.
    public var canSign: Bool {
        switch material {
        case .secret: return true
        case .ec(let handle): return handle.hasPrivateKey
        }
    }

    private static func withPEMBIO(
        _ pem: String, _ read: (OpaquePointer) -> OpaquePointer?
    ) throws(JWTError) -> OpaquePointer? {
        let bytes = Array(pem.utf8)
        guard !bytes.isEmpty, bytes.count <= Int32.max else { throw .make(JWTError.invalidKey, "empty PEM") }
        let pointer: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
        // Failures leave entries on this thread's OpenSSL error queue; the TLS engine expects it
        // empty, and the entries would say nothing safe to show anyway.
        ERR_clear_error()
        return pointer
    }
}

/// Owns one `EVP_PKEY` holding a P-256 key; frees it on deinit. Read-only after init, hence
/// shareable between threads.
final class ECKeyHandle: @unchecked Sendable {
    // @unchecked: the `EVP_PKEY` is only read after init.
    let pointer: OpaquePointer
    let hasPrivateKey: Bool

    init(adopting pointer: OpaquePointer?, hasPrivateKey: Bool, kind: String) throws(JWTError) {
        guard let pointer else {
            throw .make(JWTError.invalidKey, "cannot parse the \(kind) PEM (expected an unencrypted P-256 key)")
        }
        guard ECKeyHandle.isP256(pointer) else {
            EVP_PKEY_free(pointer)
            throw .make(JWTError.invalidKey, "the \(kind) is not an EC key on P-256, as ES256 requires")
        }
        self.pointer = pointer
        self.hasPrivateKey = hasPrivateKey
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    private static func isP256(_ key: OpaquePointer) -> Bool {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return false }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return false }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // OpenSSL's short name for the NIST curve (SN_X9_62_prime256v1) and its NIST alias.
        return group == "prime256v1" || group == "P-256"
    }
}

/// `pem_password_cb` that always fails: encrypted keys error out instead of prompting on a tty.
private func refusePassphrase(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ writing: Int32, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    -1
}
