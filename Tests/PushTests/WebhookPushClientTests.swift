import Foundation
import JSON
import Push
import Testing

final class WebhookFixture: @unchecked Sendable {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    /// Started on first use; a failure fails each test that asks, not the test process.
    static let shared = Result { try WebhookFixture() }

    let server: FixtureServer
    let dispatcher: PushDispatcher

    private init() throws {
        server = try FixtureServer(script: "webhook_server.py", arguments: ["{log}", Self.secret])
        dispatcher = try PushDispatcher(maxInFlight: 4)
    }

    func client(path: String, secret: String = WebhookFixture.secret, now: @escaping @Sendable () -> Int64 = PushClock.unixSeconds) throws -> WebhookPushClient {
        let configuration = try WebhookConfiguration(url: "http://127.0.0.1:\(server.port)\(path)", secret: secret,
                                                     timeoutMilliseconds: 5_000)
        return WebhookPushClient(configuration: configuration, dispatcher: dispatcher, now: now)
    }
}

extension WebhookPushClient {
    func send(body: [UInt8], messageID: String) async -> PushOutcome {
        await withCheckedContinuation { continuation in
            send(body: body, messageID: messageID) { continuation.resume(returning: $0) }
        }
    }
}

@Suite struct WebhookPushClientTests {
    let fixture: WebhookFixture

    init() throws { fixture = try WebhookFixture.shared.get() }

    @Test func signedRequestVerifiesIndependently() async throws {
        let clock = ManualClock(1_700_000_123)
        let client = try fixture.client(path: "/ok?case=\(UUID().uuidString)", now: clock.function)
        let id = "msg_" + UUID().uuidString
        // Multi-byte UTF-8 in the body: the signature covers bytes, not characters.
        let body = Array(#"{"text":"Genehmigung nötig ✅","type":"approval"}"#.utf8)
        #expect(await client.send(body: body, messageID: id) == .delivered(id: id))
        let record = try #require(try fixture.server.records().first { $0.object("headers")?.string("webhook-id") == id })
        #expect(record.object("signature_valid") == .bool(true))
        #expect(record.string("body") == String(decoding: body, as: UTF8.self))
        #expect(record.object("headers")?.string("webhook-timestamp") == "1700000123")
        #expect(record.object("headers")?.string("content-type") == "application/json")
    }

    @Test func wrongSecretIsRefusedByTheReceiver() async throws {
        let client = try fixture.client(path: "/ok", secret: "whsec_" + Data(repeating: 7, count: 24).base64EncodedString())
        let id = "msg_" + UUID().uuidString
        #expect(await client.send(body: Array("{}".utf8), messageID: id) == .rejected(status: 401, reason: "HTTP 401"))
        let record = try #require(try fixture.server.records().first { $0.object("headers")?.string("webhook-id") == id })
        #expect(record.object("signature_valid") == .bool(false))
    }

    static let scripted: [(path: String, expected: PushOutcome?)] = [
        ("/accepted", nil),
        ("/gone", .invalidToken(reason: "HTTP 410")),
        ("/busy", .retry(after: 12_000, reason: "HTTP 429")),
        ("/broken", .retry(after: nil, reason: "HTTP 500")),
        ("/missing", .rejected(status: 404, reason: "HTTP 404")),
    ]

    @Test(arguments: scripted)
    func outcomesAreClassified(_ path: String, _ expected: PushOutcome?) async throws {
        let client = try fixture.client(path: path)
        let id = "msg_" + UUID().uuidString
        #expect(await client.send(body: Array(#"{"n":1}"#.utf8), messageID: id) == (expected ?? .delivered(id: id)))
    }

    @Test func headerValuesCannotSmuggleLines() async throws {
        let client = try fixture.client(path: "/ok")
        let outcome = await client.send(body: Array("{}".utf8), messageID: "x\r\nx-injected: 1")
        #expect(outcome == .rejected(status: 0, reason: "invalid request (URL, scheme or header refused)"))
        #expect(try fixture.server.records().allSatisfy { $0.object("headers")?.object("x-injected") == nil })
    }

    @Test func signatureMatchesTheStandardWebhooksExample() {
        // Reference values computed with Python's hmac/base64 (see webhook_server.py's check).
        let key = Array(Data(base64Encoded: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")!)
        let signature = WebhookPushClient.signature(key: key, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330,
                                                    body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func secretsMustBeWellFormed() {
        #expect(throws: PushError.self) { try WebhookConfiguration(url: "http://x", secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") }
        #expect(throws: PushError.self) { try WebhookConfiguration(url: "http://x", secret: "whsec_!!!") }
        #expect(throws: PushError.self) { try WebhookConfiguration(url: "http://x", secret: "whsec_c2hvcnQ=") }
    }

    /// Secrets are canonical padded base64, as the Standard Webhooks libraries generate and decode them: a secret the
    /// receiver's library would refuse (or read as other bytes) fails at start-up instead of signing unverifiably.
    @Test(arguments: [
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAQ",  // unpadded (25 bytes)
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAR==",  // non-zero pad bits
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La=aSw",  // `=` inside
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n",  // trailing whitespace
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLa-w",  // URL alphabet
    ])
    func secretsMustBeCanonicalPaddedBase64(secret: String) {
        #expect(throws: PushError.self) { try WebhookConfiguration(url: "http://x", secret: secret) }
    }

    @Test func aSecretEndingInPaddingIsAccepted() {
        #expect(throws: Never.self) { try WebhookConfiguration(url: "http://x", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAQ==") }
    }
}
