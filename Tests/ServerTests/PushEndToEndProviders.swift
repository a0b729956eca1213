import Auth
import Foundation
@testable import GatewayRuntime
@testable import Server

/// The three fake providers shared by the end-to-end push tests, started once per test process: APNs (HTTP/2 + TLS
/// with a throwaway certificate, token auth checked against a throwaway P-256 `.p8` key), Google's OAuth token endpoint
/// plus FCM v1, and a Standard Webhooks receiver. Tests tell their requests apart by unique device tokens, and their
/// FCM token fetches by a unique service-account e-mail (the JWT's `iss`).
///
/// APNs answers are scripted by token prefix (see `apns_server.py`); the wrapper below adds two one-shot scripts the
/// fixture lacks: `a500…` answers 500 once then 200, `a429…` answers 429 with `Retry-After: 1` once then 200.
///
/// `@unchecked Sendable`: immutable after init.
final class PushEndToEndProviders: @unchecked Sendable {
    /// Started on first use; a failure (e.g. Python packages missing) fails each test that asks, not the test process.
    static let shared = Result { try PushEndToEndProviders() }

    static let teamID = "TEAME2E123"
    static let keyID = "KEYE2E1234"
    static let bundleID = "dev.switchboard.e2e"
    static let scheme = "sbtest"
    static let webhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    let apns: PushEndToEndFakeProvider
    let fcm: PushEndToEndFakeProvider
    let webhook: PushEndToEndFakeProvider
    let apnsKeyFile: String
    let apnsPublicKeyPEM: String
    let caFile: String
    private let serviceAccountKeyPEM: String

    // Patches the fixture's `answer` through hypercorn's `serve`, which the script imports before calling `main()`.
    private static let oneShotScripts = """
        import runpy, sys
        import hypercorn.asyncio
        script = sys.argv[1]
        sys.argv = sys.argv[1:]
        real_serve = hypercorn.asyncio.serve
        seen = set()
        def serve(app, config):
            scripted = app.__globals__["answer"]
            def answer(token, headers):
                first = token not in seen
                seen.add(token)
                if first and token.startswith("a500"):
                    return 500, {"reason": "InternalServerError"}, {}
                if first and token.startswith("a429"):
                    return 429, {"reason": "TooManyRequests"}, {"retry-after": "1"}
                return scripted(token, headers)
            app.__globals__["answer"] = answer
            return real_serve(app, config)
        hypercorn.asyncio.serve = serve
        runpy.run_path(script, run_name="__main__")
        """

    private init() throws {
        var publicPEM = ""
        apns = try PushEndToEndFakeProvider(script: "apns_server.py", arguments: ["{log}", "{dir}/tls.crt", "{dir}/tls.key"],
                                            pythonPrefix: ["-c", Self.oneShotScripts]) { dir in
            try PushEndToEndFakeProvider.run([
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", dir + "/tls.key", "-out", dir + "/tls.crt", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
            try PushEndToEndFakeProvider.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                                              "-out", dir + "/apns.p8"])
            try PushEndToEndFakeProvider.run(["openssl", "pkey", "-in", dir + "/apns.p8", "-pubout", "-out", dir + "/apns.pub"])
            publicPEM = try String(contentsOfFile: dir + "/apns.pub", encoding: .utf8)
        }
        apnsKeyFile = apns.directory + "/apns.p8"
        apnsPublicKeyPEM = publicPEM
        caFile = apns.directory + "/tls.crt"

        var accountPEM = ""
        fcm = try PushEndToEndFakeProvider(script: "fcm_server.py", arguments: ["{log}", "{dir}/sa.pub", "3600"]) { dir in
            try PushEndToEndFakeProvider.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                                              "-out", dir + "/sa.pem"])
            try PushEndToEndFakeProvider.run(["openssl", "pkey", "-in", dir + "/sa.pem", "-pubout", "-out", dir + "/sa.pub"])
            accountPEM = try String(contentsOfFile: dir + "/sa.pem", encoding: .utf8)
        }
        serviceAccountKeyPEM = accountPEM
        webhook = try PushEndToEndFakeProvider(script: "webhook_server.py", arguments: ["{log}", Self.webhookSecret])
    }

    /// Transport settings pointing at the fakes. The FCM service account gets `clientEmail` (make it unique per test to
    /// count that test's token fetches); the webhook posts to `webhookPath` (`/ok`, `/gone`, `/busy`… script it).
    func settings(clientEmail: String, webhookPath: String = "/ok") throws -> ProviderPushTransport.Settings {
        var s = ProviderPushTransport.Settings()
        s.apnsTeamID = Self.teamID
        s.apnsKeyID = Self.keyID
        s.apnsKeyFile = apnsKeyFile
        s.apnsBundleID = Self.bundleID
        s.apnsEndpoint = "https://127.0.0.1:\(apns.port)"
        s.caFile = caFile
        let account: [String: Any] = [
            "type": "service_account", "project_id": "demo", "private_key_id": "key-1", "private_key": serviceAccountKeyPEM,
            "client_email": clientEmail, "token_uri": "https://oauth2.googleapis.com/token",
        ]
        let accountFile = fcm.directory + "/account-\(UUID().uuidString).json"
        try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: accountFile))
        s.fcmServiceAccountFile = accountFile
        s.fcmTokenURI = "http://127.0.0.1:\(fcm.port)/token"
        s.fcmEndpoint = "http://127.0.0.1:\(fcm.port)"
        s.webhookURL = "http://127.0.0.1:\(webhook.port)\(webhookPath)"
        s.webhookSecret = Self.webhookSecret
        s.deepLinkScheme = Self.scheme
        return s
    }

    /// A unique hex device token starting with `prefix` (which scripts the APNs fake's answer).
    static func apnsToken(_ prefix: String) -> String {
        prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    // MARK: What the fakes received

    /// APNs requests for one device token, in arrival order.
    func apnsRequests(token: String) -> [[String: Any]] {
        apns.records().filter { ($0["path"] as? String) == "/3/device/\(token)" }
    }

    /// FCM send requests for one registration token.
    func fcmSends(token: String) -> [[String: Any]] {
        fcm.records().filter {
            $0["kind"] as? String == "send"
                && GatewayJSON.string(PushEndToEndFakeProvider.body($0), "message", "token") == token
        }
    }

    /// OAuth token requests signed by the service account with `clientEmail`.
    func fcmTokenFetches(clientEmail: String) -> [[String: Any]] {
        fcm.records().filter { $0["kind"] as? String == "token" && GatewayJSON.string($0, "claims", "iss") == clientEmail }
    }

    /// Webhook posts whose body names `target` (the device's registered webhook token).
    func webhookPosts(target: String) -> [[String: Any]] {
        webhook.records().filter { GatewayJSON.string(PushEndToEndFakeProvider.body($0), "target") == target }
    }

    /// Verifies an APNs `authorization: bearer <jwt>` with the public half of the `.p8` key (ES256, `kid`, `iss`).
    func verifyAPNsBearer(_ authorization: String?) throws -> JWTClaims {
        guard let authorization, authorization.hasPrefix("bearer ") else { throw TestFailure("no bearer: \(authorization ?? "nil")") }
        let key = try JWTKey.ecPublicKey(pem: apnsPublicKeyPEM, keyID: Self.keyID)
        let verifier = JWTVerifier(keys: [key], audience: nil, issuer: Self.teamID, requireExpiry: false)
        return try verifier.verify(String(authorization.dropFirst(7)), now: Int64(Date().timeIntervalSince1970))
    }
}
