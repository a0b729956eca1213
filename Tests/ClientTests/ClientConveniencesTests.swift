import Foundation
import SwitchboardClient
import Testing

/// The plain-Swift parts of the Apple conveniences, on Linux: the server clock behind approval countdowns (also with
/// a device clock that is two minutes slow, against a real gateway), notification routing from push payloads as
/// docs/PUSH.md describes them, and the App Group file store.
@Suite struct ClientConveniencesTests {
    static func approval(createdAt: Int64, expiresAt: Int64) -> ApprovalData {
        ApprovalData(requestId: "apr_1", sessionId: "run1", toolName: "shell", summary: "ls", details: nil, state: "pending",
                     createdAt: createdAt, expiresAt: expiresAt, decidedBy: nil, resolvedAt: nil)
    }

    @Test func theServerClockCorrectsADeviceClockAndNeverShowsMoreThanTheLifetime() {
        // The device is 60 s behind the server: 940 000 on the device is 1 000 000 on the server.
        let clock = ServerClock(serverTime: 1_000_000, receivedAt: 940_000)
        #expect(clock.offsetMilliseconds == 60_000 && clock.serverNow(deviceNow: 941_000) == 1_001_000)
        let request = Self.approval(createdAt: 1_000_000, expiresAt: 1_030_000)
        #expect(clock.remainingSeconds(of: request, deviceNow: 940_000) == 30)
        #expect(request.remainingSeconds(nowMilliseconds: 940_000) == 90, "the device clock alone would show 90 s")
        #expect(clock.remainingSeconds(of: request, deviceNow: 975_000) == 0 && clock.isExpired(request, deviceNow: 970_000))
        #expect(!clock.isExpired(request, deviceNow: 969_999))
        // An offset inflated by a slow welcome must not show more than the 30 s the request lives.
        #expect(ServerClock(offsetMilliseconds: -20_000).remainingSeconds(of: request, deviceNow: 1_000_000) == 30)
    }

    /// Reads "now" two minutes behind the real clock; sleeps for real.
    struct SlowDeviceClock: ClientClock {
        func nowMilliseconds() -> Int64 { SystemClientClock().nowMilliseconds() - 120_000 }
        func sleep(seconds: Double) async throws { try await SystemClientClock().sleep(seconds: seconds) }
    }

    @Test(.timeLimit(.minutes(1))) func theCountdownOfARealApprovalUsesTheServersClock() async throws {
        let server = try GatewayTestServer()
        let port = server.port
        _ = try server.api("POST", "/v1/sessions", ["userId": "eve", "sessionId": "s1"])
        let phone = TestDevice(port: { port }, user: "eve", device: "eve-phone", configure: { $0.clock = SlowDeviceClock() })
        await phone.start()
        try await phone.waitConnected()
        let offset = await phone.client.serverClock.offsetMilliseconds
        // 120 s less the welcome's trip (the server's time is read before it is sent): a busy machine may take a while.
        #expect(offset > 100_000 && offset <= 120_001, "offset \(offset)")
        _ = try server.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": 60])
        let events = try await phone.waitFor("approval_request") { $0.contains { if case .approvalRequest = $0 { true } else { false } } }
        let request = try #require(events.lazy.compactMap { if case .approvalRequest(let a) = $0 { a } else { nil } }.first)
        let left = await phone.client.remainingSeconds(of: request)
        #expect(left > 50 && left <= 60, "\(left) s left; the slow device clock alone says \(request.remainingSeconds(nowMilliseconds: SlowDeviceClock().nowMilliseconds()))")
        await phone.stop()
    }

    @Test func pushPayloadsRouteToTheirScreen() throws {
        // APNs `userInfo`: the routing members beside `aps` (docs/PUSH.md, "Routing").
        let approval: [AnyHashable: Any] = ["aps": ["alert": ["title": "Approval needed"], "badge": 1], "type": "approval_request",
                                            "sessionId": "run1", "requestId": "apr_12", "deeplink": "myapp://session/run1/approval/apr_12"]
        #expect(NotificationRoute(userInfo: approval) == .approval(sessionId: "run1", requestId: "apr_12"))
        let cleared: [AnyHashable: Any] = ["aps": ["content-available": 1], "type": "approval_timeout", "sessionId": "run1", "requestId": "apr_12"]
        #expect(NotificationRoute(userInfo: cleared) == .approval(sessionId: "run1", requestId: "apr_12"))
        let handoff: [AnyHashable: Any] = ["aps": ["content-available": 1], "type": "session_handoff", "sessionId": "run1", "handedOffTo": "desk-1"]
        #expect(NotificationRoute(userInfo: handoff) == .session(sessionId: "run1"))
        let message: [AnyHashable: Any] = ["aps": ["alert": ["title": "New message"]], "type": "message", "from": "o'neil@example.com",
                                           "messageId": "311", "deeplink": "myapp://chat/o%27neil%40example.com"]
        #expect(NotificationRoute(userInfo: message) == .chat(userId: "o'neil@example.com", messageId: 311))
        let group: [AnyHashable: Any] = ["type": "group_message", "groupId": "fam", "from": "olga"]
        #expect(NotificationRoute(userInfo: group) == .group(groupId: "fam", from: "olga"))
        #expect(NotificationRoute(userInfo: ["type": "friend_request_accepted"]) == .contacts)
        #expect(NotificationRoute(userInfo: ["type": "presence", "userIds": "bob,cyd"]) == .presence(userIds: ["bob", "cyd"]))
        // A push webhook body keeps the ids under `ids`.
        let webhook: [AnyHashable: Any] = ["target": "desk-1", "kind": "alert", "type": "approval_request", "title": "Approval needed",
                                           "ids": ["requestId": "apr_12", "sessionId": "run1"], "deeplink": "myapp://session/run1/approval/apr_12"]
        #expect(NotificationRoute(userInfo: webhook) == .approval(sessionId: "run1", requestId: "apr_12"))
        // Without a known type the deep link decides; without either, no route.
        #expect(NotificationRoute(userInfo: ["deeplink": "myapp://group/fam"]) == .group(groupId: "fam", from: nil))
        #expect(NotificationRoute(userInfo: ["aps": ["alert": "hi"]]) == nil)
        #expect(NotificationRoute(userInfo: ["type": "approval_request", "sessionId": "run1"]) == nil, "no requestId: nothing to open")
        #expect(NotificationRoute(deepLink: "myapp://session/run1") == .session(sessionId: "run1"))
        #expect(NotificationRoute(deepLink: "myapp://settings") == nil)
        #expect(NotificationRoute.approval(sessionId: "run1", requestId: "apr_12").deepLinkPath == "session/run1/approval/apr_12")
    }

    @Test func theAppGroupFileStoreKeepsTheIdentityAndTheOffsetAcrossInstances() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/group.com.example/Switchboard"
        let store = try AppGroupFileStore(directory: path)
        #expect(store.loadIdentity() == nil && store.load() == nil)
        let identity = DeviceIdentity(deviceToken: DeviceIdentity.generateDeviceToken())
        #expect(identity.deviceToken.count == 64 && Set(identity.deviceToken).count >= 8)
        let registered = identity.registered(.init(userId: "usr_1", hexCode: "c07e22bc", deviceId: "dev_1", token: "jwt"))
        try store.saveIdentity(registered)
        store.save(41)
        let reopened = try AppGroupFileStore(directory: path)  // another process (an extension) or the next launch
        #expect(reopened.loadIdentity() == registered && reopened.load() == 41)
        #expect(registered.userId == "usr_1" && registered.deviceToken == identity.deviceToken)
        try reopened.removeIdentity()
        #expect(store.loadIdentity() == nil && reopened.load() == 41, "sign-out forgets the identity only")
        try reopened.removeIdentity()  // idempotent
    }
}
