import Auth
import Synchronization

/// The APNs provider token: an ES256 JWT, header `{alg: ES256, kid: keyID}`, claims
/// `{iss: teamID, iat}`, reused across requests and connections.
///
/// APNs rejects tokens older than one hour (`ExpiredProviderToken`) and tokens replaced more often
/// than every 20 minutes (`TooManyProviderTokenUpdates`), so the cached token is replaced once it is
/// 20 minutes old, or on demand after `ExpiredProviderToken`. Thread-safe (one lock).
final class APNsProviderToken: Sendable {
    /// Age at which a fresh token is minted (APNs: refresh no more often than every 20 minutes).
    static let refreshAfterSeconds: Int64 = 20 * 60

    private let key: JWTKey
    private let teamID: String
    private let cached = Mutex<(token: String, issuedAt: Int64)?>(nil)

    /// - Throws: ``PushError`` when the PEM is not an unencrypted P-256 private key.
    init(privateKeyPEM: String, keyID: String, teamID: String) throws(PushError) {
        do {
            key = try JWTKey.ecPrivateKey(pem: privateKeyPEM, keyID: keyID)
        } catch {
            throw PushError("APNs signing key: \(error.message)")
        }
        self.teamID = teamID
    }

    /// The token to send at `now`, minting one when there is none or it is 20 minutes old.
    func current(now: Int64) throws(PushError) -> String {
        try cached.withLock { entry throws(PushError) -> String in
            if let entry = entry, now - entry.issuedAt < Self.refreshAfterSeconds {
                return entry.token
            }
            let token = try mint(now: now)
            entry = (token, now)
            return token
        }
    }

    /// Replaces `rejected` after APNs answered `ExpiredProviderToken`. When another request already
    /// replaced it, the newer token is returned as is, so a burst of rejections mints one token.
    func refresh(rejected: String, now: Int64) throws(PushError) -> String {
        try cached.withLock { entry throws(PushError) -> String in
            if let entry = entry, entry.token != rejected { return entry.token }
            let token = try mint(now: now)
            entry = (token, now)
            return token
        }
    }

    private func mint(now: Int64) throws(PushError) -> String {
        do {
            return try JWTSigner.sign(claims: ["iss": .string(teamID), "iat": .int(now)], key: key)
        } catch {
            throw PushError("APNs provider token: \(error.message)")
        }
    }
}
