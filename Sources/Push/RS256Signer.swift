import Auth
import COpenSSL
import JSON

/// RSASSA-PKCS1-v1_5 with SHA-256 (JWS `RS256`, RFC 7518 §3.3) for Google service-account
/// assertions. Kept in Push rather than Auth so Auth's verifier keeps refusing RS256 tokens.
///
/// Immutable after init; each signature uses its own `EVP_MD_CTX`, so one signer may be shared
/// between threads (OpenSSL 3 allows concurrent read-only use of an `EVP_PKEY`).
final class RS256Signer: @unchecked Sendable {
    // @unchecked: holds an `EVP_PKEY` used read-only after init (see above).
    private let key: OpaquePointer

    /// Loads an unencrypted PKCS#8 (`BEGIN PRIVATE KEY`) or PKCS#1 RSA private key PEM.
    /// - Throws: ``PushError`` when it does not parse, is encrypted, or is not an RSA key of at least 2048 bits.
    init(privateKeyPEM: String) throws(PushError) {
        let bytes = Array(privateKeyPEM.utf8)
        let pointer: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard !bytes.isEmpty, let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // A callback that refuses: encrypted keys fail instead of prompting on a terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        ERR_clear_error()
        guard let pointer else { throw PushError("the service account private_key is not an unencrypted PEM private key") }
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_RSA, EVP_PKEY_get_bits(pointer) >= 2048 else {
            EVP_PKEY_free(pointer)
            throw PushError("the service account private_key is not an RSA key of at least 2048 bits")
        }
        key = pointer
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// The PKCS#1 v1.5 SHA-256 signature of `message`.
    func sign(_ message: [UInt8]) throws(PushError) -> [UInt8] {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { throw PushError("out of memory") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw PushError("RS256 signing could not start")
        }
        var signature = [UInt8](repeating: 0, count: Int(max(EVP_PKEY_get_size(key), 0)))
        var length = signature.count
        let status = message.withUnsafeBufferPointer { input in
            signature.withUnsafeMutableBufferPointer { output in
                EVP_DigestSign(context, output.baseAddress, &length, input.baseAddress, input.count)
            }
        }
        guard status == 1 else { throw PushError("RS256 signing failed") }
        return Array(signature.prefix(length))
    }

    /// A compact JWS (RFC 7515 §7.1) with header `{"alg":"RS256","typ":"JWT"}` (+ `kid` when given)
    /// over `claims`, members sorted.
    func token(claims: [String: JSONValue], keyID: String?) throws(PushError) -> String {
        var header: [String: JSONValue] = ["alg": .string("RS256"), "typ": .string("JWT")]
        if let keyID { header["kid"] = .string(keyID) }
        let headerJSON: [UInt8]
        let claimsJSON: [UInt8]
        do {
            headerJSON = try JSONValue.object(header).serialized()
            claimsJSON = try JSONValue.object(claims).serialized()
        } catch {
            throw PushError("the assertion claims cannot be written as JSON")
        }
        let input = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claimsJSON)
        return input + "." + Base64URL.encode(try sign(Array(input.utf8)))
    }
}
