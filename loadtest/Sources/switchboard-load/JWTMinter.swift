import Auth
import Glibc
import JSON

/// Mints the HS256 client tokens (RFC 7519, JWS RFC 7515 §7.1) the gateway accepts on `/v1/ws?token=`, signed with
/// the server's `auth.hs256_secret` (`--jwt-secret`), as an app backend would. Claims: `sub` (user id), `device_id`,
/// `client_type` (ios, android, desktop, web), `iat` and `exp`.
///
/// Immutable and `Sendable`: built once on the main thread, used from any loop. Signing is Auth's `JWTSigner`
/// (HMAC-SHA-256 via OpenSSL), so the harness and the server agree on every byte of the encoding.
struct JWTMinter: Sendable {
    /// The shared secret as bytes.
    let secret: [UInt8]
    /// Token lifetime; a load run is far shorter, so tokens never expire mid-run.
    let lifetimeSeconds: Int64

    /// - Throws: `LoadTestError.usage` for an empty secret (the server would reject every token).
    init(secret: String, lifetimeSeconds: Int64 = 86_400) throws(LoadTestError) {
        guard !secret.isEmpty else { throw .usage("--jwt-secret must not be empty (the server's auth.hs256_secret)") }
        self.secret = Array(secret.utf8)
        self.lifetimeSeconds = lifetimeSeconds
    }

    /// A compact JWS for one device; `now` is Unix seconds (the wall clock by default).
    func token(userId: String, deviceId: String, clientType: String, now: Int64 = Int64(time(nil))) -> String {
        let claims: [String: JSONValue] = [
            "sub": .string(userId), "device_id": .string(deviceId), "client_type": .string(clientType),
            "iat": .int(now), "exp": .int(now + lifetimeSeconds),
        ]
        // Only an empty secret or non-string claims can fail, and both are ruled out above.
        return (try? JWTSigner.sign(claims: claims, key: .hmac(secret: secret))) ?? ""
    }

    /// The upgrade request target for a device: `path?token=…[&offset=N]` (PROTOCOL.md, "Identity" and "Resume").
    func requestPath(base: String, userId: String, deviceId: String, clientType: String, offset: Int64? = nil) -> String {
        var path = base + (base.contains("?") ? "&" : "?") + "token="
        path += token(userId: userId, deviceId: deviceId, clientType: clientType)
        if let offset { path += "&offset=\(offset)" }
        return path
    }
}
