import Foundation
import JSON
import Push
import Testing

/// A fake token endpoint + FCM send API, and a service account whose public key it trusts.
final class FCMFixture: @unchecked Sendable {
    /// Started on first use; a failure fails each test that asks, not the test process.
    static let shared = Result { try FCMFixture() }

    let server: FixtureServer
    let serviceAccountJSON: [UInt8]
    /// Same account, signed with a key the server does not trust.
    let impostorJSON: [UInt8]
    let dispatcher: PushDispatcher

    private init() throws {
        var trusted = ""
        var impostor = ""
        server = try FixtureServer(script: "fcm_server.py", arguments: ["{log}", "{dir}/sa.pub", "3600"]) { dir in
            for name in ["sa", "other"] {
                try FixtureServer.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                                       "-out", "\(dir)/\(name).pem"])
            }
            try FixtureServer.run(["openssl", "pkey", "-in", dir + "/sa.pem", "-pubout", "-out", dir + "/sa.pub"])
            trusted = try String(contentsOfFile: dir + "/sa.pem", encoding: .utf8)
            impostor = try String(contentsOfFile: dir + "/other.pem", encoding: .utf8)
        }
        func account(_ pem: String) throws -> [UInt8] {
            try JSONValue.object([
                "type": .string("service_account"), "project_id": .string("demo"), "private_key_id": .string("key-1"),
                "private_key": .string(pem), "client_email": .string("push@demo.iam.gserviceaccount.com"),
                "token_uri": .string("https://oauth2.googleapis.com/token"),
            ]).serialized()
        }
        serviceAccountJSON = try account(trusted)
        impostorJSON = try account(impostor)
        dispatcher = try PushDispatcher(maxInFlight: 16)
    }

    func client(account: [UInt8]? = nil, now: @escaping @Sendable () -> Int64 = PushClock.unixSeconds) throws -> FCMClient {
        let base = "http://127.0.0.1:\(server.port)"
        let configuration = try FCMConfiguration(serviceAccountJSON: account ?? serviceAccountJSON,
                                                 tokenURI: base + "/token", sendEndpoint: base, timeoutMilliseconds: 5_000)
        return try FCMClient(configuration: configuration, dispatcher: dispatcher, now: now)
    }

    /// Logged send requests whose message token is `token`.
    func sends(to token: String) throws -> [JSONValue] {
        try server.records().filter { record in
            guard record.string("kind") == "send", let body = record.string("body"),
                  let json = try? JSONValue.parse(Array(body.utf8)) else { return false }
            return json.object("message")?.string("token") == token
        }
    }
}

extension FCMClient {
    func send(_ message: FCMMessage) async -> PushOutcome {
        await withCheckedContinuation { continuation in send(message) { continuation.resume(returning: $0) } }
    }
}

@Suite struct FCMClientTests {
    let fixture: FCMFixture

    init() throws { fixture = try FCMFixture.shared.get() }

    static func unique(_ prefix: String) -> String { prefix + "-" + UUID().uuidString }

    @Test func oneVerifiedTokenRequestServesManySends() async throws {
        let clock = ManualClock(PushClock.unixSeconds())
        let client = try fixture.client(now: clock.function)
        let tokens = (0..<5).map { _ in Self.unique("ok") }
        // Concurrent first sends: they must wait for one token fetch, not start five.
        let outcomes: [PushOutcome] = await withTaskGroup(of: PushOutcome.self) { group in
            for token in tokens {
                group.addTask { await client.send(FCMMessage(token: token, title: "Approval needed", body: nil)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 5)
        for outcome in outcomes {
            guard case .delivered(let name?) = outcome else { Issue.record("not delivered: \(outcome)"); continue }
            #expect(name.hasPrefix("projects/demo/messages/"))
        }
        #expect(await client.send(FCMMessage(token: Self.unique("ok"), title: "t", body: "b")).isDelivered)
        #expect(client.tokenRequestCount == 1)

        let sends = try tokens.flatMap { try fixture.sends(to: $0) }
        #expect(sends.count == 5)
        let bearers = Set(sends.compactMap { $0.object("headers")?.string("authorization") })
        #expect(bearers.count == 1)
        let bearer = try #require(bearers.first)
        let tokenRequest = try #require(try fixture.server.records().first { record in
            record.string("kind") == "token" && "Bearer " + (record.string("access_token") ?? "") == bearer
        })
        #expect(tokenRequest.object("valid") == .bool(true))
        #expect(tokenRequest.object("claims")?.string("iss") == "push@demo.iam.gserviceaccount.com")
        #expect(tokenRequest.object("claims")?.object("iat")?.int64Value == clock.now)
        #expect(tokenRequest.object("jwt_header")?.string("kid") == "key-1")
        let first = try #require(try fixture.sends(to: tokens[0]).first)
        #expect(first.string("path") == "/v1/projects/demo/messages:send")
        let body = try JSONValue.parse(Array(try #require(first.string("body")).utf8))
        #expect(body == .object(["message": .object([
            "token": .string(tokens[0]),
            "notification": .object(["title": .string("Approval needed")]),
            "android": .object(["priority": .string("high")]),
        ])]))
    }

    @Test func accessTokenIsRefreshedFiveMinutesBeforeExpiry() async throws {
        let clock = ManualClock(PushClock.unixSeconds())
        let client = try fixture.client(now: clock.function)
        #expect(await client.send(FCMMessage(token: Self.unique("ok"))).isDelivered)
        clock.advance(by: 3600 - 300 - 1)
        #expect(await client.send(FCMMessage(token: Self.unique("ok"))).isDelivered)
        #expect(client.tokenRequestCount == 1)
        clock.advance(by: 1)
        #expect(await client.send(FCMMessage(token: Self.unique("ok"))).isDelivered)
        #expect(client.tokenRequestCount == 2)
    }

    static let scripted: [(prefix: String, expected: PushOutcome)] = [
        ("unreg", .invalidToken(reason: "UNREGISTERED")),
        ("badtoken", .invalidToken(reason: "INVALID_ARGUMENT")),
        ("badfield", .rejected(status: 400, reason: "INVALID_ARGUMENT")),
        ("quota", .retry(after: 30_000, reason: "QUOTA_EXCEEDED")),
        ("unavail", .retry(after: nil, reason: "UNAVAILABLE")),
    ]

    @Test(arguments: scripted)
    func outcomesAreClassified(_ prefix: String, _ expected: PushOutcome) async throws {
        let client = try fixture.client()
        let token = Self.unique(prefix)
        #expect(await client.send(FCMMessage(token: token, fields: ["data": .object(["k": .string("v")])])) == expected)
        #expect(try fixture.sends(to: token).count == 1)
    }

    @Test func revokedAccessTokenIsReplacedAndTheSendRetriedOnce() async throws {
        let client = try fixture.client()
        let token = Self.unique("revoke")
        #expect(await client.send(FCMMessage(token: token)).isDelivered)
        #expect(client.tokenRequestCount == 2)
        let sends = try fixture.sends(to: token)
        try #require(sends.count == 2)
        #expect(sends[0].object("status") == .int(401))
        #expect(sends[0].object("headers")?.string("authorization") != sends[1].object("headers")?.string("authorization"))
    }

    @Test func assertionSignedWithAnUntrustedKeyIsRejected() async throws {
        let client = try fixture.client(account: fixture.impostorJSON)
        let token = Self.unique("ok")
        #expect(await client.send(FCMMessage(token: token)) == .rejected(status: 400, reason: "token endpoint: invalid_grant"))
        #expect(try fixture.sends(to: token).isEmpty)
    }

    @Test func serviceAccountErrorsNameTheMissingMember() throws {
        #expect(throws: PushError("the service account file has no client_email")) {
            try FCMConfiguration(serviceAccountJSON: Array(#"{"project_id":"p","private_key":"k","token_uri":"u"}"#.utf8))
        }
        #expect(throws: PushError.self) {
            try FCMClient(configuration: FCMConfiguration(serviceAccountJSON: Array(
                #"{"project_id":"p","client_email":"e","private_key":"not a key","token_uri":"u"}"#.utf8)),
                dispatcher: fixture.dispatcher)
        }
    }
}
