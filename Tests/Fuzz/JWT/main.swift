// Fuzz target: bearer tokens as the gateway receives them: compact JWS splitting and base64url, the JOSE header,
// the claims, and HS256 verification; plus sign-then-verify of fuzzed claims. Compiled into the Auth module
// (JSON linked).
//
// Input: byte 0 picks the mode, the rest is a token (mode even) or a claims JSON text (mode odd).
// Invariants checked beyond "no crash":
// - every rejection carries one of JWTError's stable codes;
// - a part that base64url-decodes encodes back to the same text (decoding is canonical);
// - claims that JWTClaims accepts can be signed, and the token verifies to the same claims unless a time check
//   (exp/nbf) refuses it.

private let key = JWTKey.hmac(secret: Array("fuzzing-secret-0123456789abcdef!".utf8), keyID: "k1")
private let verifier = JWTVerifier(keys: [key], audience: nil, issuer: nil, requireExpiry: false)
private let now: Int64 = 1_700_000_000
private let codes: Set<String> = [
    JWTError.malformed, JWTError.unsupportedAlgorithm, JWTError.algorithmMismatch, JWTError.unknownKey,
    JWTError.badSignature, JWTError.expired, JWTError.notYetValid, JWTError.wrongAudience, JWTError.wrongIssuer,
    JWTError.missingClaim, JWTError.invalidKey,
]

private func checkToken(_ token: String) {
    do {
        _ = try verifier.verify(token, now: now)
    } catch {
        fuzzRequire(codes.contains(error.code), "unknown error code \(error.code)")
    }
    _ = BearerToken.parse(authorization: "Bearer " + token)
    guard let parts = try? CompactJWS(token) else { return }
    for piece in token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
        let text = String(decoding: piece, as: UTF8.self)
        if let decoded = Base64URL.decode(text) {
            fuzzRequire(Base64URL.encode(decoded) == text, "base64url decoding is not canonical for \(text)")
        }
    }
    _ = try? JWTHeader.parse(parts.header)
    if let members = try? JWTHeader.jsonObject(parts.payload, part: "JWT payload") {
        _ = try? JWTClaims(members)
    }
}

private func checkSignAndVerify(_ json: [UInt8]) {
    guard case .object(let members)? = try? JSONValue.parse(json), (try? JWTClaims(members)) != nil else { return }
    let token: String
    do {
        token = try JWTSigner.sign(claims: members, key: key)
    } catch {
        fatalError("fuzz invariant: valid claims could not be signed: \(error)")
    }
    do {
        let claims = try verifier.verify(token, now: now)
        fuzzRequire(claims.all == members, "the verified claims differ from the signed ones")
    } catch {
        let allowed = [JWTError.expired, JWTError.notYetValid].contains(error.code)
            || (error.code == JWTError.malformed && token.utf8.count > JWTVerifier.maximumTokenLength)
        fuzzRequire(allowed, "a token we signed was refused: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let bytes = input.rest
    if mode & 1 == 0 {
        checkToken(String(decoding: bytes, as: UTF8.self))
    } else {
        checkSignAndVerify(bytes)
    }
    return 0
}
