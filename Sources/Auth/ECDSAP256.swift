import COpenSSL

/// ECDSA P-256 with SHA-256 in the JWS signature form (RFC 7518 §3.4): the 64-byte
/// big-endian R‖S concatenation, not the DER `ECDSA-Sig-Value` OpenSSL speaks. Stateless;
/// every call uses its own `EVP_MD_CTX`, so calls on a shared key may run concurrently.
enum ECDSAP256 {
    /// Bytes of each of R and S (RFC 7518 §3.4: 32 for P-256).
    static let coordinateLength = 32
    /// Total JWS signature length.
    static let signatureLength = 2 * coordinateLength

    /// Signs `message` with the private key `key`; returns 64 bytes R‖S.
    static func sign(_ message: [UInt8], key: OpaquePointer) throws(JWTError) -> [UInt8] {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { throw .make(JWTError.invalidKey, "out of memory") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw .make(JWTError.invalidKey, "ES256 signing could not start")
        }
        var der = [UInt8](repeating: 0, count: Int(max(EVP_PKEY_get_size(key), 0)))
        var derLength = der.count
        let status = message.withUnsafeBufferPointer { input in
            der.withUnsafeMutableBufferPointer { output in
                EVP_DigestSign(context, output.baseAddress, &derLength, input.baseAddress, input.count)
            }
        }
        guard status == 1, let raw = rawSignature(fromDER: Array(der.prefix(derLength))) else {
            throw .make(JWTError.invalidKey, "ES256 signing failed")
        }
        return raw
    }

    /// Whether `signature` (exactly 64 bytes R‖S) is valid for `message` under `key` (public or
    /// private). Any other length, including a DER signature, is simply invalid.
    static func verify(_ signature: [UInt8], message: [UInt8], key: OpaquePointer) -> Bool {
        defer { ERR_clear_error() }
        guard signature.count == signatureLength, let der = derSignature(fromRaw: signature),
              let context = EVP_MD_CTX_new()
        else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let status = message.withUnsafeBufferPointer { input in
            der.withUnsafeBufferPointer { sig in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, input.baseAddress, input.count)
            }
        }
        return status == 1
    }

    /// Converts DER `ECDSA-Sig-Value` (SEC 1 §C.5) to R‖S, each left-padded to 32 bytes.
    static func rawSignature(fromDER der: [UInt8]) -> [UInt8]? {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { return nil }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer? = nil
        var s: OpaquePointer? = nil
        ECDSA_SIG_get0(parsed, &r, &s)
        guard let r, let s else { return nil }
        var raw = [UInt8](repeating: 0, count: signatureLength)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            // BN_bn2binpad fails (-1) when the number does not fit, i.e. is not a P-256 scalar.
            (BN_bn2binpad(r, buffer.baseAddress, Int32(coordinateLength)),
             BN_bn2binpad(s, buffer.baseAddress! + coordinateLength, Int32(coordinateLength)))
        }
        guard written.0 == Int32(coordinateLength), written.1 == Int32(coordinateLength) else { return nil }
        return raw
    }

    /// Converts 64-byte R‖S into DER for OpenSSL's verifier.
    static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == signatureLength, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let numbers = raw.withUnsafeBufferPointer { buffer in
            (BN_bin2bn(buffer.baseAddress, Int32(coordinateLength), nil),
             BN_bin2bn(buffer.baseAddress! + coordinateLength, Int32(coordinateLength), nil))
        }
        guard let r = numbers.0, let s = numbers.1 else {
            BN_free(numbers.0)
            BN_free(numbers.1)
            return nil
        }
        // ECDSA_SIG_set0 takes ownership of both numbers on success.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
