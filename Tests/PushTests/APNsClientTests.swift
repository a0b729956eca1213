import Auth
import Foundation
import JSON
import Push
import Testing

@Suite struct APNsClientTests {
    let fixture: APNsFixture

    init() throws { fixture = try APNsFixture.shared.get() }

    @Test func alertRequestCarriesEveryHeaderAndAVerifiableProviderToken() async throws {
        let client = try fixture.client()
        let token = APNsFixture.token("aa")
        let payload = Array(#"{"aps":{"alert":{"body":"b","title":"t"}},"type":"approval"}"#.utf8)
        let before = PushClock.unixSeconds()
        let outcome = await client.send(APNsNotification(deviceToken: token, pushType: .alert, payload: payload,
                                                         expiration: 1_900_000_000, collapseID: "session-42", priority: 10))
        let records = try fixture.server.records(pathSuffix: token)
        try #require(records.count == 1)
        let record = records[0]
        #expect(outcome == .delivered(id: record.string("apns_id")))
        #expect(record.string("apns_id") != nil)
        #expect(record.string("method") == "POST")
        #expect(record.string("path") == "/3/device/\(token)")
        #expect(record.string("http_version") == "2")
        #expect(record.string("body") == String(decoding: payload, as: UTF8.self))
        let headers = try #require(record.object("headers"))
        #expect(headers.string("apns-push-type") == "alert")
        #expect(headers.string("apns-topic") == APNsFixture.bundleID)
        #expect(headers.string("apns-priority") == "10")
        #expect(headers.string("apns-expiration") == "1900000000")
        #expect(headers.string("apns-collapse-id") == "session-42")
        let claims = try fixture.verifyBearer(headers.string("authorization"), now: PushClock.unixSeconds())
        #expect(claims.issuer == APNsFixture.teamID)
        let issuedAt = try #require(claims.all["iat"]?.int64Value)
        #expect(issuedAt >= before - 1 && issuedAt <= PushClock.unixSeconds() + 1)
        let header = try #require(String(headers.string("authorization")!.dropFirst(7)).split(separator: ".").first)
        let headerJSON = try JSONValue.parse(try #require(Base64URL.decode(String(header))))
        #expect(headerJSON.string("alg") == "ES256")
        #expect(headerJSON.string("kid") == APNsFixture.keyID)
    }

    @Test func liveActivityAndBackgroundTopicsAndPriorities() async throws {
        let client = try fixture.client()
        let live = APNsFixture.token("aa")
        let background = APNsFixture.token("aa")
        let payload = Array(#"{"aps":{"content-available":1}}"#.utf8)
        #expect(await client.send(APNsNotification(deviceToken: live, pushType: .liveActivity, payload: payload)).isDelivered)
        // Background pushes must be priority 5 even when 10 is asked for.
        #expect(await client.send(APNsNotification(deviceToken: background, pushType: .background, payload: payload,
                                                   priority: 10)).isDelivered)
        let liveHeaders = try #require(try fixture.server.records(pathSuffix: live).first?.object("headers"))
        #expect(liveHeaders.string("apns-push-type") == "liveactivity")
        #expect(liveHeaders.string("apns-topic") == APNsFixture.bundleID + ".push-type.liveactivity")
        #expect(liveHeaders.string("apns-priority") == "10")
        #expect(liveHeaders.string("apns-expiration") == nil)
        #expect(liveHeaders.string("apns-collapse-id") == nil)
        let backgroundHeaders = try #require(try fixture.server.records(pathSuffix: background).first?.object("headers"))
        #expect(backgroundHeaders.string("apns-push-type") == "background")
        #expect(backgroundHeaders.string("apns-topic") == APNsFixture.bundleID)
        #expect(backgroundHeaders.string("apns-priority") == "5")
    }

    @Test func concurrentRequestsShareOneHTTP2Connection() async throws {
        let dispatcher = try PushDispatcher(maxInFlight: 8)
        defer { dispatcher.shutdown() }
        let client = try fixture.client(dispatcher: dispatcher)
        let tokens = (0..<6).map { _ in APNsFixture.token("aa") }
        let outcomes: [PushOutcome] = await withTaskGroup(of: PushOutcome.self) { group in
            for token in tokens {
                group.addTask { await client.send(APNsNotification(deviceToken: token, pushType: .alert, payload: Array("{}".utf8))) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 6 && outcomes.allSatisfy { $0.isDelivered })
        let connections = try Set(tokens.flatMap { try fixture.server.records(pathSuffix: $0) }.compactMap { $0.string("connection") })
        #expect(connections.count == 1)
    }

    static let scripted: [(prefix: String, expected: PushOutcome)] = [
        ("b410", .invalidToken(reason: "Unregistered")),
        ("b400", .invalidToken(reason: "BadDeviceToken")),
        ("b401", .invalidToken(reason: "DeviceTokenNotForTopic")),
        ("c429", .retry(after: 7_000, reason: "TooManyRequests")),
        ("c500", .retry(after: nil, reason: "InternalServerError")),
        ("c503", .retry(after: nil, reason: "ServiceUnavailable")),
        ("d400", .rejected(status: 400, reason: "BadExpirationDate")),
    ]

    @Test(arguments: scripted)
    func outcomesAreClassified(_ prefix: String, _ expected: PushOutcome) async throws {
        let client = try fixture.client()
        let token = APNsFixture.token(prefix)
        #expect(await client.send(APNsNotification(deviceToken: token, pushType: .alert, payload: Array("{}".utf8))) == expected)
        #expect(try fixture.server.records(pathSuffix: token).count == 1)
    }

    @Test func expiredProviderTokenIsRefreshedAndTheRequestRetriedOnce() async throws {
        let clock = ManualClock(PushClock.unixSeconds())
        let client = try fixture.client(now: clock.function)
        let token = APNsFixture.token("e403")
        clock.advance(by: 1)  // the fresh token must differ from the rejected one (iat changes)
        let outcome = await client.send(APNsNotification(deviceToken: token, pushType: .alert, payload: Array("{}".utf8)))
        let records = try fixture.server.records(pathSuffix: token)
        try #require(records.count == 2)
        #expect(outcome == .delivered(id: records[1].string("apns_id")))
        let first = records[0].object("headers")?.string("authorization")
        let second = records[1].object("headers")?.string("authorization")
        #expect(first != second)
        _ = try fixture.verifyBearer(second, now: clock.now)

        let always = APNsFixture.token("f403")
        #expect(await client.send(APNsNotification(deviceToken: always, pushType: .alert, payload: Array("{}".utf8)))
                == .retry(after: nil, reason: "ExpiredProviderToken"))
        #expect(try fixture.server.records(pathSuffix: always).count == 2)
    }

    @Test func providerTokenIsReusedForTwentyMinutesThenReplaced() async throws {
        let clock = ManualClock(PushClock.unixSeconds())
        let client = try fixture.client(now: clock.function)
        var bearers: [String?] = []
        for advance: Int64 in [0, 60, 19 * 60 - 61, 61] {
            clock.advance(by: advance)
            let token = APNsFixture.token("aa")
            #expect(await client.send(APNsNotification(deviceToken: token, pushType: .alert, payload: Array("{}".utf8))).isDelivered)
            bearers.append(try fixture.server.records(pathSuffix: token).first?.object("headers")?.string("authorization"))
        }
        #expect(bearers[0] != nil)
        #expect(bearers[0] == bearers[1] && bearers[1] == bearers[2])
        #expect(bearers[3] != bearers[2])
        let claims = try fixture.verifyBearer(bearers[3], now: clock.now)
        #expect(claims.all["iat"]?.int64Value == clock.now)
    }

    @Test func malformedDeviceTokenIsNeverSent() async throws {
        let client = try fixture.client()
        // A path-changing token with a unique hex tail: had it been sent, the fake would log a path ending in the tail.
        // (Other tests use the fake at the same time, so only this request's own trace counts.)
        let tail = APNsFixture.token("ab")
        #expect(await client.send(APNsNotification(deviceToken: "../../" + tail, pushType: .alert, payload: [])) == .invalidToken(reason: "BadDeviceToken"))
        // A sent request would be logged before its answer reached us; the send above has been answered.
        #expect(try fixture.server.records().allSatisfy { $0.string("path")?.contains(tail) != true })
    }

    @Test func connectionFailureIsRetryable() async throws {
        var configuration = fixture.configuration()
        configuration.endpoint = "https://127.0.0.1:1"
        let client = try APNsClient(configuration: configuration, dispatcher: fixture.dispatcher)
        let outcome = await client.send(APNsNotification(deviceToken: "abcd", pushType: .alert, payload: []))
        #expect(outcome.isRetryable)
    }
}

extension PushOutcome {
    var isDelivered: Bool {
        if case .delivered = self { return true }
        return false
    }
}
