import COpenSSL

/// Loads PEM private keys without ever prompting for a passphrase.
///
/// OpenSSL's default passphrase callback reads from the controlling terminal, which would hang a
/// daemon; encrypted keys are refused instead.
enum PrivateKeyFile {
    /// Reads and parses the unencrypted PEM private key at `path`.
    /// - Returns: an `EVP_PKEY *` the caller must free with `EVP_PKEY_free`.
    /// - Throws: ``TLSError`` naming `path`: missing/unreadable file, or not an unencrypted PEM key.
    static func load(_ path: String) throws(TLSError) -> OpaquePointer {
        guard let file = BIO_new_file(path, "r") else {
            throw TLSError.openSSL("cannot load private key \(path)")
        }
        defer { BIO_free(file) }
        guard let key = PEM_read_bio_PrivateKey(file, nil, refusePassphrase, nil) else {
            throw TLSError.openSSL("cannot parse private key \(path) (expected an unencrypted PEM key)")
        }
        return key
    }
}

/// `pem_password_cb` that always fails, so encrypted keys error out instead of prompting.
private func refusePassphrase(
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ size: Int32,
    _ writing: Int32,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    -1
}
