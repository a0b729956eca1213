import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// The backend's `notification` through the server API to the fake APNs: a `custom` or `session_event` that carries
/// one is pushed as an alert like a message (the same acknowledgement deadline, the same privacy rule).
@Suite struct PushEndToEndBackendNotificationTests {
    static let p = PushEndToEndProviders.self

    @Test func aCustomEventWithANotificationAlertsAnOfflineUserWithGenericText() throws {
        let g = try PushEndToEndGateway()
        let token = Self.p.apnsToken("aa")
        try g.offlineDevice(
            user: "ann", device: "ann-phone", commands: [("push_register", ["kind": "apns", "token": token])])
        let published = try g.server.api(
            "POST", "/v1/users/ann/events",
            [
                "name": "build.finished", "payload": ["ok": false],
                "notification": [
                    "title": "Tests failed", "body": "3 of 312 failed in auth", "interruption": "timeSensitive",
                    "collapseId": "run1-ci"
                ]
            ])
        #expect(published.status == 201)
        #expect(g.eventually { g.job(1)?.state == "sent" })
        let r = try #require(g.providers.apnsRequests(token: token).first)
        #expect(APNsRecord.header(r, "apns-push-type") == "alert")
        #expect(APNsRecord.header(r, "apns-collapse-id") == "run1-ci")
        let aps = try #require(APNsRecord.aps(r))
        #expect(GatewayJSON.string(aps, "alert", "title") == "New notification")  // details are off by default
        #expect(GatewayJSON.value(aps, ["alert", "body"]) == nil)
        #expect(aps["interruption-level"] as? String == "time-sensitive")
        #expect(!(r["body"] as? String ?? "").contains("312"))
        #expect(APNsRecord.payload(r)?["type"] as? String == "custom")
        #expect(APNsRecord.payload(r)?["name"] as? String == "build.finished")

        // Without one the event is never pushed; a malformed one is refused naming the member.
        #expect(try g.server.api("POST", "/v1/users/ann/events", ["name": "quiet"]).status == 201)
        let bad = try g.server.api(
            "POST", "/v1/users/ann/events",
            [
                "name": "x", "notification": ["title": "t", "body": "b", "interruption": "loud"]
            ])
        #expect(bad.status == 400)
        #expect(GatewayJSON.string(bad.json, "error", "code") == "invalid_field")
        #expect(GatewayJSON.string(bad.json, "error", "message")?.contains("notification.interruption") == true)
        #expect(g.server.runtime.outboxReadsAgain())
        #expect(g.jobs().count == 1)
    }

    @Test func aSessionEventWithANotificationWaitsForTheAcknowledgementLikeAMessage() throws {
        let g = try PushEndToEndGateway(configure: { $0.settings.pushAckDelayMs = 500 })
        let token = Self.p.apnsToken("aa")
        try g.createSession(user: "ann", id: "s1")
        let ann = try g.server.connect(user: "ann", device: "ann-phone")
        #expect(try ann.command("push_register", ["kind": "apns", "token": token])["ok"] as? Bool == true)
        #expect(try ann.command("set_notification_settings", ["showDetails": true])["ok"] as? Bool == true)
        let posted = try g.server.api(
            "POST", "/v1/sessions/s1/events",
            [
                "kind": "question", "payload": ["text": "deploy?"],
                "notification": ["title": "Agent asks", "body": "Deploy to production?", "interruption": "active"]
            ])
        #expect(posted.status == 201)
        _ = try ann.next("session_event")  // on the socket first; never acknowledged
        #expect(g.jobs().isEmpty)
        #expect(g.eventually(seconds: 10) { g.job(1)?.state == "sent" })
        let r = try #require(g.providers.apnsRequests(token: token).first)
        #expect(GatewayJSON.string(APNsRecord.aps(r), "alert", "title") == "Agent asks")
        #expect(GatewayJSON.string(APNsRecord.aps(r), "alert", "body") == "Deploy to production?")
        #expect(APNsRecord.payload(r)?["type"] as? String == "session_event")
        #expect(APNsRecord.payload(r)?["sessionId"] as? String == "s1")
        #expect(APNsRecord.payload(r)?["deeplink"] as? String == "\(Self.p.scheme)://session/s1")
    }
}
