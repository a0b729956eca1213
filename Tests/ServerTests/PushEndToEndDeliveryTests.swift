import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Retries, dead tokens, privacy, FCM, the webhook and restarts through the whole chain, asserted on what the fake
/// providers received and on the outbox rows.
@Suite struct PushEndToEndDeliveryTests {
    static let p = PushEndToEndProviders.self

    /// A gateway with ann's phone offline holding one APNs token, and session s1.
    static func annOffline(_ g: PushEndToEndGateway, token: String, settings: [String: Any]? = nil) throws {
        var commands: [(String, [String: Any])] = [("push_register", ["kind": "apns", "token": token])]
        if let settings { commands.append(("set_notification_settings", settings)) }
        try g.offlineDevice(user: "ann", device: "ann-phone", commands: commands)
        try g.createSession(user: "ann", id: "s1")
    }

    @Test func aServerErrorIsRetriedThenSent() throws {
        let g = try PushEndToEndGateway()
        let token = Self.p.apnsToken("a500")
        try Self.annOffline(g, token: token)
        let approval = try g.requestApproval(session: "s1")
        #expect(g.eventually { g.job(1)?.state == "sent" })
        #expect(g.job(1)?.attempts == 2)
        let requests = g.providers.apnsRequests(token: token)
        #expect(requests.map { $0["status"] as? Int } == [500, 200])
        // The retry is the same notification, not a re-rendered one with another collapse id.
        #expect(requests.map { APNsRecord.header($0, "apns-collapse-id") } == [approval.id, approval.id])
    }

    @Test func tooManyRequestsWaitsForRetryAfter() throws {
        // The production backoff: Retry-After: 7 must push the next attempt at least 7 s out.
        let g = try PushEndToEndGateway(retryDelay: nil)
        let token = Self.p.apnsToken("c429")
        try Self.annOffline(g, token: token)
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try g.requestApproval(session: "s1")
        #expect(g.eventually { g.job(1)?.attempts == 1 })
        let job = try #require(g.job(1))
        #expect(job.state == "pending")
        #expect(job.nextAttemptAt >= before + 7_000)
        #expect(job.lastError?.contains("TooManyRequests") == true)
        #expect(g.providers.apnsRequests(token: token).count == 1)

        // A one-shot 429 (Retry-After: 1) is retried no sooner than a second later, then sent.
        let once = Self.p.apnsToken("a429")
        let h = try PushEndToEndGateway()
        try Self.annOffline(h, token: once)
        _ = try h.requestApproval(session: "s1")
        #expect(h.eventually { h.providers.apnsRequests(token: once).count == 1 })
        let firstSeen = Date()
        #expect(h.eventually { h.providers.apnsRequests(token: once).count == 2 })
        #expect(Date().timeIntervalSince(firstSeen) >= 0.95)
        #expect(h.eventually { h.job(1)?.state == "sent" })
        #expect(h.job(1)?.attempts == 2)
    }

    @Test func anUnregisteredTokenIsRemovedAndNeverRetried() throws {
        let g = try PushEndToEndGateway()
        let token = Self.p.apnsToken("b410")
        try Self.annOffline(g, token: token)
        _ = try g.requestApproval(session: "s1")
        #expect(g.eventually { g.job(1)?.state == "dead" })
        #expect(g.job(1)?.lastError == "invalid token: Unregistered")
        #expect(g.eventually { g.tokens(of: "ann-phone").isEmpty })
        // No retry, and the forgotten token yields no job for the next event.
        _ = try g.requestApproval(session: "s1")
        #expect(g.server.runtime.outboxReadsAgain())
        #expect(g.server.runtime.pushOutbox?.startedAttempts == 1)
        #expect(g.providers.apnsRequests(token: token).count == 1)
        #expect(g.jobs().count == 1)
    }

    @Test func withoutDetailsTheLockScreenShowsGenericText() throws {
        let g = try PushEndToEndGateway()
        try Self.makeContacts(g)
        let token = Self.p.apnsToken("aa")
        try g.offlineDevice(user: "bob", device: "bob-phone", commands: [("push_register", ["kind": "apns", "token": token])])
        let alice = try g.server.connect(user: "alice", device: "alice-phone")
        #expect(try alice.command("send_message", ["to": "bob", "text": "deploy key sk-live-4eC39HqLyjWDarjtT1zdp7dc"])["ok"] as? Bool == true)
        #expect(g.eventually { g.job(1)?.state == "sent" })
        let r = try #require(g.providers.apnsRequests(token: token).first)
        #expect(GatewayJSON.string(APNsRecord.aps(r), "alert", "title") == "New message")
        #expect(GatewayJSON.value(APNsRecord.aps(r), ["alert", "body"]) == nil)
        #expect(!(r["body"] as? String ?? "").contains("sk-live"))
        #expect(!(r["body"] as? String ?? "").contains("deploy"))
        #expect(APNsRecord.payload(r)?["deeplink"] as? String == "\(Self.p.scheme)://chat/alice")
        #expect(APNsRecord.payload(r)?["from"] as? String == "alice")
    }

    @Test func withDetailsTheTextIsRedactedAndCut() throws {
        let g = try PushEndToEndGateway()
        try Self.makeContacts(g)
        let token = Self.p.apnsToken("aa")
        try g.offlineDevice(user: "bob", device: "bob-phone", commands: [
            ("push_register", ["kind": "apns", "token": token]),
            ("set_notification_settings", ["showDetails": true]),
        ])
        let alice = try g.server.connect(user: "alice", device: "alice-phone")
        let secret = "sk-live-4eC39HqLyjWDarjtT1zdp7dc"
        let bearer = "Bearer abcDEF123ghiJKL456mnoPQR789"
        let text = "use \(secret) and \(bearer) " + String(repeating: "then wait. ", count: 35)
        #expect(try alice.command("send_message", ["to": "bob", "text": text])["ok"] as? Bool == true)
        #expect(g.eventually { g.job(1)?.state == "sent" })
        let r = try #require(g.providers.apnsRequests(token: token).first)
        let alert = try #require(APNsRecord.aps(r)?["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Alice")
        let body = try #require(alert["body"] as? String)
        #expect(body.hasPrefix("use [redacted] and Bearer [redacted] then wait."))
        #expect(body.count <= 200 && body.hasSuffix("…"))
        #expect(!(r["body"] as? String ?? "").contains("4eC39HqLyjWDarjtT1zdp7dc"))
        #expect(!(r["body"] as? String ?? "").contains("abcDEF123ghiJKL456mnoPQR789"))

        // Approvals: the tool name and the summary, redacted.
        try g.createSession(user: "bob", id: "s1")
        _ = try g.requestApproval(session: "s1", summary: "curl -H 'Authorization: Bearer abcDEF123ghiJKL456mnoPQR789' x")
        #expect(g.eventually { g.job(2)?.state == "sent" })
        let a = try #require(g.providers.apnsRequests(token: token).last)
        #expect(GatewayJSON.string(APNsRecord.aps(a), "alert", "title") == "Approval needed: shell")
        #expect(GatewayJSON.string(APNsRecord.aps(a), "alert", "body") == "curl -H 'Authorization: Bearer [redacted]' x")
    }

    @Test func manyJobsInFlightAreEachSentExactlyOnce() throws {
        // Jobs finishing while the outbox re-reads due rows must not be sent again from that read's stale snapshot.
        let g = try PushEndToEndGateway()
        let tokens = (0..<12).map { _ in Self.p.apnsToken("aa") }
        for (i, token) in tokens.enumerated() {
            try g.offlineDevice(user: "ann", device: "ann-\(i)", commands: [("push_register", ["kind": "apns", "token": token])])
        }
        try g.createSession(user: "ann", id: "s1")
        for _ in 0..<3 { _ = try g.requestApproval(session: "s1") }
        #expect(g.eventually { g.jobs().count == 36 && g.jobs().allSatisfy { $0.state == "sent" } })
        // A read that began before the last job was recorded ends within these; nothing it returned may go out again.
        #expect(g.server.runtime.outboxReadsAgain())
        #expect(g.server.runtime.pushOutbox?.startedAttempts == 36)
        let counts = tokens.map { g.providers.apnsRequests(token: $0).count }
        #expect(counts == Array(repeating: 3, count: tokens.count))
        #expect(counts.allSatisfy { $0 >= 3 })
    }

    static func makeContacts(_ g: PushEndToEndGateway) throws {
        for (id, name) in [("alice", "Alice"), ("bob", "Bob")] {
            #expect(try g.server.api("POST", "/v1/users", ["userId": id, "displayName": name]).status == 201)
        }
        #expect(try g.server.api("POST", "/v1/contacts", ["userA": "alice", "userB": "bob"]).status == 200)
    }
}
