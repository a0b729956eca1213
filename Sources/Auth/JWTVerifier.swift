/// Verifies compact JWS tokens (RFC 7515 §5.2) and validates their claims (RFC 7519 §7.2).
///
/// Immutable and `Sendable`: build one per configuration and share it across event loops.
/// `verify` does no I/O and reads no clock. Checks run in this order, and the first failure is
/// reported: size and shape → header (`alg`, `crit`, `kid`) → key selection → signature → payload
/// JSON → `exp` → `nbf` → `iss` → `aud`. The payload is only parsed once the signature holds.
public struct JWTVerifier: Sendable {
    /// Tokens longer than this (in bytes) are `malformed` without further work; WebSocket upgrade
    /// tokens are a few hundred bytes, and the bound caps the cost of hostile input.
    public static let maximumTokenLength = 8192

    /// The configured keys, in the order they are tried.
    public let keys: [JWTKey]
    /// Required `aud` member; nil disables the audience check (RFC 7519 §4.1.3 expects a
    /// service that has an identity to set it).
    public let audience: String?
    /// Required `iss`; nil disables the issuer check.
    public let issuer: String?
    /// Allowed clock skew in seconds for `exp` and `nbf`; negative values are treated as 0.
    public let leewaySeconds: Int64
    /// When true, a token without `exp` is rejected with `missing_claim`.
    public let requireExpiry: Bool

    /// keys: several allowed (rotation); when the token has a `kid`, only the key with that id is tried; without a `kid`, every key whose algorithm matches the header's alg.
    ///
    /// Keys without a `keyID` are therefore never tried for tokens that carry a `kid`.
    /// When `audience`/`issuer` are set, a token lacking `aud`/`iss` fails with `missing_claim`,
    /// one with another value with `wrong_audience`/`wrong_issuer`.
    public init(keys: [JWTKey], audience: String?, issuer: String?, leewaySeconds: Int64 = 30, requireExpiry: Bool = true) {
        self.keys = keys
        self.audience = audience
        self.issuer = issuer
        self.leewaySeconds = max(leewaySeconds, 0)
        self.requireExpiry = requireExpiry
    }

    /// `now` in Unix seconds (passed in: no clock reads inside).
    ///
    /// - Returns: the token's claims when the signature and every configured check pass.
    /// - Throws: ``JWTError`` with one of its stable codes; the message never contains the token.
    public func verify(_ token: String, now: Int64) throws(JWTError) -> JWTClaims {
        let parts = try CompactJWS(token)
        let header = try JWTHeader.parse(parts.header)
        let candidates = try candidateKeys(for: header)
        try checkSignature(parts, candidates: candidates)
        let claims = try JWTClaims(JWTHeader.jsonObject(parts.payload, part: "JWT payload"))
        try checkTimes(claims, now: now)
        try checkIdentity(claims)
        return claims
    }

    private func candidateKeys(for header: JWTHeader) throws(JWTError) -> [JWTKey] {
        let selected: [JWTKey]
        if let keyID = header.keyID {
            selected = keys.filter { $0.keyID == keyID }
            if selected.isEmpty { throw .make(JWTError.unknownKey, "no configured key has the token's kid") }
        } else {
            selected = keys
            if selected.isEmpty { throw .make(JWTError.unknownKey, "no verification keys are configured") }
        }
        // The key, not the header, decides the algorithm: this is what stops an HS256 token
        // "signed" with a public key's PEM from being checked as HMAC.
        let matching = selected.filter { $0.algorithm == header.algorithm }
        if matching.isEmpty {
            throw .make(JWTError.algorithmMismatch, "the token's alg \(header.algorithm.rawValue) does not match the key's algorithm")
        }
        return matching
    }

    private func checkSignature(_ parts: CompactJWS, candidates: [JWTKey]) throws(JWTError) {
        var lastKeyError: JWTError? = nil
        for key in candidates {
            do {
                if try key.isValidSignature(parts.signature, for: parts.signingInput) { return }
            } catch {
                lastKeyError = error
            }
        }
        // Only blame the configuration when no usable key was there to check against.
        if let lastKeyError, candidates.count == 1 { throw lastKeyError }
        throw .make(JWTError.badSignature, "the signature does not verify with any candidate key")
    }

    private func checkTimes(_ claims: JWTClaims, now: Int64) throws(JWTError) {
        if let expiresAt = claims.expiresAt {
            // Saturating: exp near Int64.max must not trap or wrap into the past.
            let (deadline, overflow) = expiresAt.addingReportingOverflow(leewaySeconds)
            if !overflow, deadline < now { throw .make(JWTError.expired, "the token expired") }
        } else if requireExpiry {
            throw .make(JWTError.missingClaim, "the token has no exp claim")
        }
        if let notBefore = claims.notBefore {
            let (start, overflow) = notBefore.subtractingReportingOverflow(leewaySeconds)
            if !overflow, start > now { throw .make(JWTError.notYetValid, "the token is not valid yet (nbf)") }
        }
    }

    private func checkIdentity(_ claims: JWTClaims) throws(JWTError) {
        if let issuer {
            guard let tokenIssuer = claims.issuer else { throw .make(JWTError.missingClaim, "the token has no iss claim") }
            if tokenIssuer != issuer { throw .make(JWTError.wrongIssuer, "the token's iss is not the expected issuer") }
        }
        if let audience {
            guard claims.all["aud"] != nil else { throw .make(JWTError.missingClaim, "the token has no aud claim") }
            if !claims.audience.contains(audience) {
                throw .make(JWTError.wrongAudience, "the token's aud does not include this service")
            }
        }
    }
}
