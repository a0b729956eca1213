import Auth
import GatewayProtocol
import Glibc

/// Who a client is, from its token's claims.
struct ClientIdentity: Sendable, Equatable {
    var userId: String
    var deviceId: String
    var clientType: String
    /// The token's `iat` (Unix seconds), checked against the device's revocation; nil when the token has none.
    var issuedAt: Int64? = nil
}

/// Checks client tokens (HS256 with the shared or generated secret, ES256 with the backend's public key) and
/// backend API keys, and signs tokens for standalone devices. Immutable; shared by every loop.
final class GatewayAuthenticator: Sendable {
    static let clientTypes: Set<String> = ["ios", "android", "desktop", "web"]
    /// Standalone tokens live this long; a device re-registers with its device token for a new one.
    static let standaloneTokenSeconds: Int64 = 30 * 24 * 3600

    private let verifier: JWTVerifier
    private let signingKey: JWTKey
    private let apiKeys: APIKeySet
    private let audience: String?
    private let issuer: String?

    init(
        hs256Secret: [UInt8], es256PublicKeyPEM: String?, audience: String?, issuer: String?, leewaySeconds: Int64,
        apiKeys: [String]
    ) throws {
        var keys = [JWTKey.hmac(secret: hs256Secret)]
        if let pem = es256PublicKeyPEM { keys.append(try JWTKey.ecPublicKey(pem: pem)) }
        verifier = JWTVerifier(keys: keys, audience: audience, issuer: issuer, leewaySeconds: leewaySeconds)
        signingKey = .hmac(secret: hs256Secret)
        var named: [String: String] = [:]
        for (i, key) in apiKeys.enumerated() { named["key\(i + 1)"] = key }
        self.apiKeys = APIKeySet(keys: named)
        self.audience = audience
        self.issuer = issuer
    }

    var serverAPIEnabled: Bool { apiKeys.count > 0 }

    /// Verifies a client token. Errors carry a stable code and never the token.
    func identify(token: String) -> Result<ClientIdentity, JWTError> {
        do {
            let claims = try verifier.verify(token, now: Self.unixNow())
            guard let sub = claims.subject, !sub.isEmpty else {
                return .failure(JWTError(code: "missing_claim", message: "the token has no sub (user id)"))
            }
            guard let device = claims.string("device_id"), !device.isEmpty else {
                return .failure(JWTError(code: "missing_claim", message: "the token has no device_id claim"))
            }
            // The same id grammar as the socket and the API: a user the token names can always be addressed there.
            guard Identifier.isValid(sub) else {
                return .failure(
                    JWTError(
                        code: "invalid_claim",
                        message: "the token's sub is not a valid user id: ids are \(Identifier.rule)"))
            }
            guard Identifier.isValid(device) else {
                return .failure(
                    JWTError(
                        code: "invalid_claim",
                        message: "the token's device_id is not a valid device id: ids are \(Identifier.rule)"))
            }
            guard let type = claims.string("client_type") else {
                return .failure(JWTError(code: "missing_claim", message: "the token has no client_type claim"))
            }
            guard Self.clientTypes.contains(type) else {
                return .failure(
                    JWTError(
                        code: "invalid_claim", message: "the token's client_type must be ios, android, desktop or web"))
            }
            return .success(ClientIdentity(userId: sub, deviceId: device, clientType: type, issuedAt: claims.issuedAt))
        } catch {
            return .failure(error)
        }
    }

    /// The name of the API key presented, or nil.
    func checkAPIKey(_ presented: String) -> String? { apiKeys.match(presented) }

    /// A token for a standalone device.
    func issueToken(for identity: ClientIdentity) throws -> String {
        let now = Self.unixNow()
        var claims: [String: JSONValue] = [
            "sub": .string(identity.userId), "device_id": .string(identity.deviceId),
            "client_type": .string(identity.clientType), "iat": .int(now),
            "exp": .int(now + Self.standaloneTokenSeconds)
        ]
        if let audience { claims["aud"] = .string(audience) }
        if let issuer { claims["iss"] = .string(issuer) }
        return try JWTSigner.sign(claims: claims, key: signingKey)
    }

    static func unixNow() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }
}
