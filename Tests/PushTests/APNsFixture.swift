import Auth
import Foundation
import Push

/// One fake APNs server (HTTP/2 + TLS, self-signed certificate) and one signing key shared by the
/// APNs tests; tests tell their requests apart by device token.
final class APNsFixture: @unchecked Sendable {
    /// Started on first use; a failure (e.g. Python packages missing) fails each test that asks, not the test process.
    static let shared = Result { try APNsFixture() }

    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let bundleID = "dev.switchboard.app"

    let server: FixtureServer
    let privateKeyPEM: String
    let publicKeyPEM: String
    let caFile: String
    let dispatcher: PushDispatcher

    private init() throws {
        var keyPEM = ""
        var publicPEM = ""
        server = try FixtureServer(script: "apns_server.py", arguments: ["{log}", "{dir}/tls.crt", "{dir}/tls.key"]) { dir in
            try FixtureServer.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                   "-nodes", "-keyout", dir + "/tls.key", "-out", dir + "/tls.crt", "-days", "2",
                                   "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
            try FixtureServer.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                                   "-out", dir + "/apns.p8"])
            try FixtureServer.run(["openssl", "pkey", "-in", dir + "/apns.p8", "-pubout", "-out", dir + "/apns.pub"])
            keyPEM = try String(contentsOfFile: dir + "/apns.p8", encoding: .utf8)
            publicPEM = try String(contentsOfFile: dir + "/apns.pub", encoding: .utf8)
        }
        privateKeyPEM = keyPEM
        publicKeyPEM = publicPEM
        caFile = server.directory + "/tls.crt"
        dispatcher = try PushDispatcher(maxInFlight: 16)
    }

    func configuration() -> APNsConfiguration {
        APNsConfiguration(teamID: Self.teamID, keyID: Self.keyID, privateKeyPEM: privateKeyPEM, bundleID: Self.bundleID,
                          environment: .sandbox, endpoint: "https://127.0.0.1:\(server.port)", caFile: caFile,
                          timeoutMilliseconds: 5_000)
    }

    func client(dispatcher: PushDispatcher? = nil, now: (@Sendable () -> Int64)? = nil) throws -> APNsClient {
        try APNsClient(configuration: configuration(), dispatcher: dispatcher ?? self.dispatcher,
                       now: now ?? PushClock.unixSeconds)
    }

    /// A unique hex token starting with `prefix`.
    static func token(_ prefix: String) -> String {
        prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// Verifies a logged `authorization` header's provider token with the key's public half.
    func verifyBearer(_ authorization: String?, now: Int64) throws -> JWTClaims {
        guard let authorization, authorization.hasPrefix("bearer ") else { throw FixtureServer.Failure(description: "no bearer") }
        let key = try JWTKey.ecPublicKey(pem: publicKeyPEM, keyID: Self.keyID)
        let verifier = JWTVerifier(keys: [key], audience: nil, issuer: Self.teamID, requireExpiry: false)
        return try verifier.verify(String(authorization.dropFirst(7)), now: now)
    }
}

extension APNsClient {
    /// `send` as an async call.
    func send(_ notification: APNsNotification) async -> PushOutcome {
        await withCheckedContinuation { continuation in
            send(notification) { continuation.resume(returning: $0) }
        }
    }
}
