import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Approvals and handoffs through the whole chain: WebSocket `push_register` → server API → outbox → ProviderPushTransport
/// → libcurl HTTP/2 → the fake APNs, asserted on what APNs received and on the outbox rows.
@Suite struct PushEndToEndApprovalTests {
    static let p = PushEndToEndProviders.self

    @Test func anOfflineRecipientGetsATimeSensitiveAlertWithCollapseIdDeadlineBadgeAndDeepLink() throws {
        let g = try PushEndToEndGateway()
        let token = Self.p.apnsToken("aa")
        try g.offlineDevice(user: "ann", device: "ann-phone", commands: [
            ("push_register", ["kind": "apns", "token": token, "environment": "sandbox"]),
        ])
        try g.createSession(user: "ann", id: "s1")
        let approval = try g.requestApproval(session: "s1", timeoutSeconds: 60)

        #expect(g.eventually { g.job(1)?.state == "sent" })
        let requests = g.providers.apnsRequests(token: token)
        try #require(requests.count == 1)
        let r = requests[0]
        #expect(r["method"] as? String == "POST")
        #expect(r["http_version"] as? String == "2")
        #expect(APNsRecord.header(r, "apns-push-type") == "alert")
        #expect(APNsRecord.header(r, "apns-topic") == Self.p.bundleID)
        #expect(APNsRecord.header(r, "apns-priority") == "10")
        #expect(APNsRecord.header(r, "apns-collapse-id") == approval.id)
        #expect(APNsRecord.header(r, "apns-expiration") == String(approval.expiresAt / 1000))
        let claims = try g.providers.verifyAPNsBearer(APNsRecord.header(r, "authorization"))
        #expect(claims.issuer == Self.p.teamID)
        #expect(abs((claims.issuedAt ?? 0) - Int64(Date().timeIntervalSince1970)) < 60)

        let aps = try #require(APNsRecord.aps(r))
        // Details are off by default: only the generic title reaches the lock screen.
        #expect(GatewayJSON.string(aps, "alert", "title") == "Approval needed")
        #expect(GatewayJSON.value(aps, ["alert", "body"]) == nil)
        #expect(GatewayJSON.int(aps, "badge") == 1)
        #expect(aps["interruption-level"] as? String == "time-sensitive")
        #expect(aps["thread-id"] as? String == "s1")
        let payload = try #require(APNsRecord.payload(r))
        #expect(payload["type"] as? String == "approval_request")
        #expect(payload["requestId"] as? String == approval.id)
        #expect(payload["sessionId"] as? String == "s1")
        #expect(payload["deeplink"] as? String == "\(Self.p.scheme)://session/s1/approval/\(approval.id)")
        #expect(!(r["body"] as? String ?? "").contains("rm -rf"))

        // A second pending approval raises the badge.
        let second = try g.requestApproval(session: "s1", timeoutSeconds: 60)
        #expect(g.eventually { g.job(2)?.state == "sent" })
        let again = g.providers.apnsRequests(token: token).first { APNsRecord.header($0, "apns-collapse-id") == second.id }
        #expect(GatewayJSON.int(APNsRecord.aps(again), "badge") == 2)
    }

    @Test func anInvalidLiveActivityTokenFallsBackToAnAlertInTheSameDeliveryAndIsForgotten() throws {
        let g = try PushEndToEndGateway()
        let alert = Self.p.apnsToken("aa"), activity = Self.p.apnsToken("b410")
        try g.createSession(user: "ann", id: "s1")   // first: a Live Activity token needs an existing session of the user
        try g.offlineDevice(user: "ann", device: "ann-phone", commands: [
            ("push_register", ["kind": "apns", "token": alert, "environment": "sandbox"]),
            ("push_register", ["kind": "liveActivityUpdate", "token": activity, "sessionId": "s1", "environment": "sandbox"]),
        ])
        let first = try g.requestApproval(session: "s1")

        #expect(g.eventually { g.job(1)?.state == "sent" })
        #expect(g.jobs().count == 1)   // one job: the alert went out in the same delivery
        #expect(g.job(1)?.attempts == 1)
        let la = g.providers.apnsRequests(token: activity)
        try #require(la.count == 1)
        #expect(la[0]["status"] as? Int == 410)
        #expect(APNsRecord.header(la[0], "apns-push-type") == "liveactivity")
        #expect(APNsRecord.header(la[0], "apns-topic") == Self.p.bundleID + ".push-type.liveactivity")
        #expect(APNsRecord.aps(la[0])?["event"] as? String == "update")
        let fallback = g.providers.apnsRequests(token: alert)
        try #require(fallback.count == 1)
        #expect(APNsRecord.header(fallback[0], "apns-push-type") == "alert")
        #expect(APNsRecord.header(fallback[0], "apns-collapse-id") == first.id)
        #expect(GatewayJSON.string(APNsRecord.aps(fallback[0]), "alert", "title") == "Approval needed")
        #expect(g.eventually { !g.tokens(of: "ann-phone").contains { $0.kind == "liveActivityUpdate" } })
        #expect(g.tokens(of: "ann-phone").map(\.kind) == ["apns"])

        // The dead activity token is not tried again: the next approval goes straight to the alert.
        let second = try g.requestApproval(session: "s1")
        #expect(g.eventually { g.job(2)?.state == "sent" })
        #expect(g.providers.apnsRequests(token: activity).count == 1)
        let alerts = g.providers.apnsRequests(token: alert)
        #expect(alerts.count == 2)
        #expect(APNsRecord.header(alerts.last, "apns-collapse-id") == second.id)
    }

    @Test func aTimedOutApprovalIsReplacedByABackgroundPushWithTheSameCollapseId() throws {
        let g = try PushEndToEndGateway()
        let token = Self.p.apnsToken("aa")
        try g.offlineDevice(user: "ann", device: "ann-phone", commands: [("push_register", ["kind": "apns", "token": token])])
        try g.createSession(user: "ann", id: "s1")
        let approval = try g.requestApproval(session: "s1", timeoutSeconds: 0.3)

        #expect(g.eventually { g.jobs().count == 2 && g.jobs().allSatisfy { $0.state == "sent" } })
        let requests = g.providers.apnsRequests(token: token)
        #expect(requests.first.flatMap { APNsRecord.header($0, "apns-push-type") } == "alert")
        let clear = try #require(requests.last)
        #expect(APNsRecord.header(clear, "apns-push-type") == "background")
        #expect(APNsRecord.header(clear, "apns-priority") == "5")
        #expect(APNsRecord.header(clear, "apns-collapse-id") == approval.id)
        #expect(APNsRecord.header(clear, "apns-expiration") == nil)   // the clearing push must not expire with the deadline
        let aps = try #require(APNsRecord.aps(clear))
        #expect(GatewayJSON.int(aps, "content-available") == 1)
        #expect(aps["alert"] == nil && aps["sound"] == nil)
        #expect(APNsRecord.payload(clear)?["type"] as? String == "approval_timeout")
        #expect(APNsRecord.payload(clear)?["requestId"] as? String == approval.id)
        // docs/PUSH.md: "badge updated" — nothing is pending any more.
        #expect(GatewayJSON.int(aps, "badge") == 0)
    }

    @Test func anApprovalAnsweredOnAnotherDeviceClearsTheOfflineDevice() throws {
        let g = try PushEndToEndGateway()
        let token = Self.p.apnsToken("aa")
        try g.offlineDevice(user: "ann", device: "ann-phone", commands: [("push_register", ["kind": "apns", "token": token])])
        try g.createSession(user: "ann", id: "s1")
        let approval = try g.requestApproval(session: "s1")
        #expect(g.eventually { g.job(1)?.state == "sent" })

        let desktop = try g.server.connect(user: "ann", device: "ann-desk", clientType: "desktop")
        let answered = try desktop.command("approve", ["requestId": approval.id])
        #expect(GatewayJSON.string(answered, "result", "state") == "approved")
        // The phone still shows the alert: it must be replaced by a background push with the same collapse id.
        #expect(g.eventually(seconds: 1.5) { g.providers.apnsRequests(token: token).count == 2 })
        let clear = g.providers.apnsRequests(token: token).dropFirst().first
        #expect(APNsRecord.header(clear, "apns-push-type") == "background")
        #expect(APNsRecord.header(clear, "apns-collapse-id") == approval.id)
    }

    @Test func aHandoffSendsABackgroundPushAndEndsTheOldDevicesLiveActivity() throws {
        let g = try PushEndToEndGateway()
        let token = Self.p.apnsToken("aa"), activity = Self.p.apnsToken("ab")
        try g.createSession(user: "ann", id: "s1")
        try g.offlineDevice(user: "ann", device: "ann-phone", commands: [
            ("push_register", ["kind": "apns", "token": token]),
            ("push_register", ["kind": "liveActivityUpdate", "token": activity, "sessionId": "s1"]),
            ("session_attach", ["sessionId": "s1"]),
        ])
        let desktop = try g.server.connect(user: "ann", device: "ann-desk", clientType: "desktop")
        #expect(try desktop.command("session_attach", ["sessionId": "s1"])["ok"] as? Bool == true)

        #expect(g.eventually { g.jobs().count == 2 && g.jobs().allSatisfy { $0.state == "sent" } })
        // At least once: exact once-only delivery is manyJobsInFlightAreEachSentExactlyOnce's business (a known race).
        let background = g.providers.apnsRequests(token: token)
        try #require(!background.isEmpty)
        #expect(APNsRecord.header(background[0], "apns-push-type") == "background")
        #expect(APNsRecord.header(background[0], "apns-priority") == "5")
        #expect(GatewayJSON.int(APNsRecord.aps(background[0]), "content-available") == 1)
        let payload = try #require(APNsRecord.payload(background[0]))
        #expect(payload["type"] as? String == "session_handoff")
        #expect(payload["sessionId"] as? String == "s1")
        #expect(payload["handedOffTo"] != nil)
        let end = g.providers.apnsRequests(token: activity)
        try #require(!end.isEmpty)
        #expect(APNsRecord.header(end[0], "apns-push-type") == "liveactivity")
        #expect(APNsRecord.header(end[0], "apns-topic") == Self.p.bundleID + ".push-type.liveactivity")
        let aps = try #require(APNsRecord.aps(end[0]))
        #expect(aps["event"] as? String == "end")
        #expect(GatewayJSON.string(aps, "content-state", "handedOffTo", "deviceId") == "ann-desk")
        // The desktop is connected and active: it gets the event over its socket, never a push.
        #expect(g.jobs().allSatisfy { $0.deviceId == "ann-phone" })
    }
}
