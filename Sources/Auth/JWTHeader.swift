/// The JOSE header of a compact JWS, reduced to what verification needs (RFC 7515 §4).
///
/// Parsing enforces the header-level rules: a JSON object, a supported `alg` (never `none`), a
/// string `kid` if present, and no `crit` (RFC 7515 §4.1.11: we implement no extensions, so
/// any critical extension makes the token invalid).
struct JWTHeader: Equatable {
    let algorithm: JWTAlgorithm
    let keyID: String?

    /// Parses the decoded header bytes. Messages never echo header values: they are attacker
    /// controlled and would end up in logs.
    static func parse(_ bytes: [UInt8]) throws(JWTError) -> JWTHeader {
        let members = try JWTHeader.jsonObject(bytes, part: "JOSE header")
        guard let algorithmValue = members["alg"] else {
            throw .make(JWTError.malformed, "the JOSE header has no alg")
        }
        guard case .string(let name) = algorithmValue else {
            throw .make(JWTError.malformed, "the JOSE header alg is not a string")
        }
        // RFC 7518 §3.6 "none" in any spelling: some libraries compared case-insensitively.
        if name.lowercased() == "none" {
            throw .make(JWTError.unsupportedAlgorithm, "unsecured tokens (alg none) are never accepted")
        }
        // RFC 7515 §4.1.1: alg values are case-sensitive, so "hs256" is not HS256.
        guard let algorithm = JWTAlgorithm(rawValue: name) else {
            throw .make(JWTError.unsupportedAlgorithm, "the token's alg is not one of HS256, ES256")
        }
        if members["crit"] != nil {
            throw .make(JWTError.unsupportedAlgorithm, "the token lists critical header extensions (crit), none of which are supported")
        }
        var keyID: String? = nil
        if let value = members["kid"] {
            guard case .string(let kid) = value else {
                throw .make(JWTError.malformed, "the JOSE header kid is not a string")
            }
            keyID = kid
        }
        return JWTHeader(algorithm: algorithm, keyID: keyID)
    }

    /// Parses `bytes` as a JSON object, mapping every failure to `malformed` naming `part`.
    static func jsonObject(_ bytes: [UInt8], part: String) throws(JWTError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw .make(JWTError.malformed, "the \(part) is not valid JSON (byte \(error.offset): \(error.reason))")
        }
        guard case .object(let members) = value else {
            throw .make(JWTError.malformed, "the \(part) is not a JSON object")
        }
        return members
    }
}
