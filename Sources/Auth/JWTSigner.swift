/// Creates compact JWS tokens (RFC 7515 §7.1), e.g. APNs provider tokens (ES256 with the `.p8`
/// key, `kid` = key ID, claims `iss` = team ID and `iat`). Stateless and thread-safe.
public enum JWTSigner {
    /// Compact JWS: base64url(header).base64url(payload).base64url(signature). Header {"alg","typ":"JWT","kid"?}. ES256 signatures are the 64-byte raw R||S form (JWS), not DER.
    ///
    /// `alg` comes from the key, `kid` from its ``JWTKey/keyID``. Members are written in sorted
    /// order, so the same claims and key give the same header and payload bytes (ES256 signatures
    /// are randomized and still differ).
    /// - Throws: `invalid_key` when the key cannot sign (EC public key, empty HMAC secret);
    ///   `malformed` when the claims contain a non-finite number or a registered claim of the
    ///   wrong type (which our own verifier would reject).
    public static func sign(claims: [String: JSONValue], key: JWTKey) throws(JWTError) -> String {
        _ = try JWTClaims(claims)
        var header: [String: JSONValue] = ["alg": .string(key.algorithm.rawValue), "typ": .string("JWT")]
        if let keyID = key.keyID { header["kid"] = .string(keyID) }
        let headerJSON: [UInt8]
        let payloadJSON: [UInt8]
        do {
            headerJSON = try JSONValue.object(header).serialized()
            payloadJSON = try JSONValue.object(claims).serialized()
        } catch {
            throw .make(JWTError.malformed, "the claims cannot be written as JSON: \(error.reason)")
        }
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payloadJSON)
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
