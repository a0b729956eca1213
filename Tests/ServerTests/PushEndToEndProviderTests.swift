import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// FCM and the webhook through the whole chain, and the outbox surviving a restart.
@Suite struct PushEndToEndProviderTests {
    static let p = PushEndToEndProviders.self

    @Test func anAndroidDeviceGetsAnFCMAlertWithOneOAuthTokenFetch() throws {
        let g = try PushEndToEndGateway()
        let token = "ok-" + UUID().uuidString
        try g.offlineDevice(user: "ann", device: "ann-pixel", clientType: "android",
                            commands: [("push_register", ["kind": "fcm", "token": token])])
        try g.createSession(user: "ann", id: "s1")
        let first = try g.requestApproval(session: "s1")
        #expect(g.eventually { g.job(1)?.state == "sent" })
        let second = try g.requestApproval(session: "s1")
        #expect(g.eventually { g.job(2)?.state == "sent" })

        let sends = g.providers.fcmSends(token: token)
        try #require(sends.count == 2)
        #expect(sends.allSatisfy { $0["status"] as? Int == 200 && ($0["path"] as? String) == "/v1/projects/demo/messages:send" })
        let fetches = g.providers.fcmTokenFetches(clientEmail: g.fcmClientEmail)
        #expect(fetches.count == 1)
        #expect(fetches.first?["valid"] as? Bool == true)
        let issued = try #require(fetches.first?["access_token"] as? String)
        #expect(sends.allSatisfy { PushEndToEndFakeProvider.header($0, "authorization") == "Bearer \(issued)" })

        let message = try #require(GatewayJSON.object(PushEndToEndFakeProvider.body(sends[0]), "message"))
        #expect(GatewayJSON.string(message, "notification", "title") == "Approval needed")
        #expect(GatewayJSON.value(message, ["notification", "body"]) == nil)
        #expect(GatewayJSON.string(message, "data", "type") == "approval_request")
        #expect(GatewayJSON.string(message, "data", "requestId") == first.id)
        #expect(GatewayJSON.string(message, "data", "sessionId") == "s1")
        #expect(GatewayJSON.string(message, "data", "deeplink") == "\(Self.p.scheme)://session/s1/approval/\(first.id)")
        #expect(GatewayJSON.string(message, "android", "priority")?.uppercased() == "HIGH")
        let later = GatewayJSON.object(PushEndToEndFakeProvider.body(sends[1]), "message")
        #expect(GatewayJSON.string(later, "data", "requestId") == second.id)
    }

    @Test func aWebhookPushIsSignedTheStandardWebhooksWay() throws {
        let g = try PushEndToEndGateway(webhookPath: "/ok")
        let target = "https://app.example/push/\(UUID().uuidString)"
        try g.offlineDevice(user: "ann", device: "ann-web", clientType: "web",
                            commands: [("push_register", ["kind": "webhook", "token": target])])
        try g.createSession(user: "ann", id: "s1")
        let approval = try g.requestApproval(session: "s1")
        #expect(g.eventually { g.job(1)?.state == "sent" })

        let posts = g.providers.webhookPosts(target: target)
        try #require(posts.count == 1)
        let post = posts[0]
        #expect(post["signature_valid"] as? Bool == true)
        #expect(PushEndToEndFakeProvider.referenceLibraryVerified(post), "standardwebhooks: \(post["library_valid"] ?? "not installed")")
        #expect(post["status"] as? Int == 204)
        #expect(PushEndToEndFakeProvider.header(post, "webhook-id") == "psh_1")   // the outbox job's id
        let stamp = Int64(PushEndToEndFakeProvider.header(post, "webhook-timestamp") ?? "") ?? 0
        #expect(abs(stamp - Int64(Date().timeIntervalSince1970)) < 60)
        let body = try #require(PushEndToEndFakeProvider.body(post))
        #expect(body["type"] as? String == "approval_request")
        #expect(body["kind"] as? String == "alert")
        #expect(body["title"] as? String == "Approval needed")
        #expect(body["body"] == nil)
        #expect(body["collapseId"] as? String == approval.id)
        #expect(GatewayJSON.int(body, "badge") == 1)
        #expect(GatewayJSON.string(body, "ids", "requestId") == approval.id)
        #expect(body["deeplink"] as? String == "\(Self.p.scheme)://session/s1/approval/\(approval.id)")
    }

    @Test func aGoneWebhookTargetIsForgottenAndNeverRetried() throws {
        // The receiver answers 410 for /gone: the webhook target is dead, like an unregistered token.
        let g = try PushEndToEndGateway(webhookPath: "/gone")
        let target = "https://app.example/push/\(UUID().uuidString)"
        try g.offlineDevice(user: "ann", device: "ann-web", clientType: "web",
                            commands: [("push_register", ["kind": "webhook", "token": target])])
        try g.createSession(user: "ann", id: "s1")
        _ = try g.requestApproval(session: "s1")
        #expect(g.eventually { g.job(1)?.state == "dead" })
        #expect(g.job(1)?.attempts == 1)
        #expect(g.job(1)?.lastError == "invalid token: HTTP 410")
        #expect(g.eventually { g.tokens(of: "ann-web").isEmpty })
        #expect(g.server.runtime.outboxReadsAgain())
        #expect(g.server.runtime.pushOutbox?.startedAttempts == 1)
        #expect(g.providers.webhookPosts(target: target).count == 1)
    }

    @Test func aPendingJobIsSentExactlyOnceAfterARestart() throws {
        let token = Self.p.apnsToken("aa")
        let directory = try TemporaryDirectory()
        let approval: (id: String, expiresAt: Int64)
        do {
            // First life: no transport, so the job stays in the outbox; then the process "dies".
            let g = try PushEndToEndGateway(directory: directory, sending: false)
            try g.offlineDevice(user: "ann", device: "ann-phone", commands: [("push_register", ["kind": "apns", "token": token])])
            try g.createSession(user: "ann", id: "s1")
            approval = try g.requestApproval(session: "s1", timeoutSeconds: 60)
            #expect(g.eventually { g.job(1)?.state == "pending" })
            g.shutdown()
        }
        #expect(try Self.p.shared.get().apnsRequests(token: token).isEmpty)

        let g = try PushEndToEndGateway(directory: directory)
        #expect(g.eventually { g.job(1)?.state == "sent" })
        #expect(g.job(1)?.attempts == 1)
        // Reading the outbox again (its poll, every second, does the same) must not send it again.
        #expect(g.server.runtime.outboxReadsAgain())
        #expect(g.server.runtime.pushOutbox?.startedAttempts == 1)
        let requests = g.providers.apnsRequests(token: token)
        #expect(requests.count == 1)
        #expect(APNsRecord.header(requests.first, "apns-collapse-id") == approval.id)
        #expect(g.jobs().count == 1)
    }
}
