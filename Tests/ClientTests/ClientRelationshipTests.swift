import Foundation
import Storage
import SwitchboardClient
import Testing

/// The Swift client's relationship, presence, history and push calls against a real in-process gateway: each typed
/// call, its typed events on the other side, and the wire errors it surfaces.
@Suite struct ClientRelationshipTests {
    /// Creates `user` through the server API and returns its hex code.
    static func user(_ server: GatewayTestServer, _ user: String) throws -> String {
        #expect(try server.api("POST", "/v1/users", ["userId": user]).status == 201)
        return try #require(GatewayJSON.string(try server.api("GET", "/v1/users/\(user)").json, "hexCode"))
    }

    static func code(_ error: any Error) -> String? {
        if case .server(let code, _)? = error as? ClientError { return code }
        return nil
    }

    @Test(.timeLimit(.minutes(1))) func friendRequestsAreSentAnsweredAndWithdrawnThroughTheClient() async throws {
        let server = try GatewayTestServer()
        let port = server.port
        let fayCode = try Self.user(server, "fay")
        let gusCode = try Self.user(server, "gus")
        let hanCode = try Self.user(server, "han")
        let fay = TestDevice(port: { port }, user: "fay", device: "fay-phone")
        let gus = TestDevice(port: { port }, user: "gus", device: "gus-phone")
        let han = TestDevice(port: { port }, user: "han", device: "han-phone")
        for device in [fay, gus, han] { await device.start() }
        for device in [fay, gus, han] { try await device.waitConnected() }

        await #expect { try await fay.client.sendFriendRequest(hexCode: fayCode) } throws: { Self.code($0) == "self_request" }
        let sent = try await fay.client.sendFriendRequest(hexCode: gusCode)
        #expect(sent.state == "pending" && sent.from.userId == "fay" && sent.to.userId == "gus")
        await #expect { try await fay.client.sendFriendRequest(hexCode: gusCode.uppercased()) } throws: { Self.code($0) == "request_already_sent" }
        try await gus.waitFor("the incoming request") { events in
            events.contains { if case .friendRequest(let r) = $0 { r.requestId == sent.requestId && r.state == "pending" } else { false } }
        }
        #expect(try await gus.client.friendRequests().incoming.map(\.requestId) == [sent.requestId])
        #expect(try await fay.client.friendRequests().outgoing.map(\.requestId) == [sent.requestId])

        // Accepted: both are contacts, see each other's presence, and can write to each other.
        #expect(try await gus.client.acceptFriendRequest(sent.requestId).state == "accepted")
        try await fay.waitFor("the acceptance") { events in
            events.contains { if case .friendRequest(let r) = $0 { r.requestId == sent.requestId && r.state == "accepted" } else { false } }
        }
        #expect(try await fay.client.contacts().map(\.user.userId) == ["gus"])
        #expect(try await fay.client.presence().map(\.userId) == ["gus"])
        await #expect { try await fay.client.sendFriendRequest(hexCode: gusCode) } throws: { Self.code($0) == "already_friends" }
        let message = try await fay.client.send(message: "hello gus", to: "gus")
        #expect(try await gus.client.history(with: "fay").messages.map(\.messageId) == [message.messageId])
        #expect(try await gus.client.unreadCounts()["fay"] == 1)
        try await gus.client.markRead(with: "fay", upTo: message.messageId)
        #expect(try await gus.client.unreadCounts()["fay"] ?? 0 == 0)

        // Withdrawn by the sender, rejected by the recipient: each side is told.
        let toHan = try await fay.client.sendFriendRequest(hexCode: hanCode)
        #expect(try await fay.client.cancelFriendRequest(toHan.requestId).state == "cancelled")
        try await han.waitFor("the cancellation") { events in
            events.contains { if case .friendRequest(let r) = $0 { r.requestId == toHan.requestId && r.state == "cancelled" } else { false } }
        }
        let fromHan = try await han.client.sendFriendRequest(hexCode: gusCode)
        #expect(try await gus.client.rejectFriendRequest(fromHan.requestId).state == "rejected")
        await #expect { try await gus.client.acceptFriendRequest(fromHan.requestId) } throws: { Self.code($0) != nil }
        #expect(try await han.client.contacts().isEmpty)
        for device in [fay, gus, han] { await device.stop() }
    }

    @Test(.timeLimit(.minutes(1))) func connectCodesMakeContactsThroughTheClient() async throws {
        let server = try GatewayTestServer()
        let port = server.port
        _ = try Self.user(server, "ida")
        _ = try Self.user(server, "jon")
        let ida = TestDevice(port: { port }, user: "ida", device: "ida-phone")
        let jonPhone = TestDevice(port: { port }, user: "jon", device: "jon-phone")
        let jonDesk = TestDevice(port: { port }, user: "jon", device: "jon-desk", clientType: "desktop")
        for device in [ida, jonPhone, jonDesk] { await device.start() }
        for device in [ida, jonPhone, jonDesk] { try await device.waitConnected() }

        let first = try await jonPhone.client.connectCode()
        #expect(first.code.count == 6 && first.code.allSatisfy(\.isNumber))
        #expect(try await jonPhone.client.connectCode() == first, "asking again returns the same code")
        let second = try await jonPhone.client.connectCode(regenerate: true)
        #expect(second.code != first.code)
        try await jonDesk.waitFor("the new code on the other device") { events in
            events.contains { if case .connectCodeChanged(let c) = $0 { c.code == second.code } else { false } }
        }

        await #expect { try await ida.client.connect(code: "12") } throws: { Self.code($0) == "connect_code_invalid" }
        await #expect { try await ida.client.connect(code: first.code) } throws: { Self.code($0) == "connect_code_expired" }
        #expect(try await ida.client.connect(code: second.code).userId == "jon")
        await #expect { try await ida.client.connect(code: second.code) } throws: { Self.code($0) == "already_friends" }
        #expect(try await jonDesk.client.contacts().map(\.user.userId) == ["ida"])
        for device in [ida, jonPhone, jonDesk] { await device.stop() }
    }

    @Test(.timeLimit(.minutes(1))) func pushTokensAndNotificationSettingsAreStoredForTheDevice() async throws {
        let server = try GatewayTestServer()
        let port = server.port
        #expect(try server.api("POST", "/v1/sessions", ["userId": "kai", "sessionId": "build-7"]).status == 201)
        let kai = TestDevice(port: { port }, user: "kai", device: "kai-phone")
        await kai.start()
        try await kai.waitConnected()

        try await kai.client.registerAPNs(token: "apns-token", environment: .sandbox)
        try await kai.client.registerLiveActivityPushToStart(token: "start-token", environment: .production)
        try await kai.client.registerLiveActivityUpdate(token: "update-token", sessionId: "build-7", environment: .production)
        try await kai.client.registerFCM(token: "fcm-token")
        try await kai.client.unregisterPush(kind: "fcm")
        await #expect { try await kai.client.registerFCM(token: "") } throws: { Self.code($0) == "invalid_field" }

        // Each reply came after the commit: the database holds exactly what the calls said.
        let store = try SQLiteGatewayStore(options: SQLiteStoreOptions(path: server.databasePath))
        defer { store.close() }
        let tokens = try store.loadSnapshot().pushTokens.filter { $0.userId == "kai" && $0.deviceId == "kai-phone" }
        let stored = tokens.map { "\($0.kind) \($0.token) \($0.environment ?? "-") \($0.sessionId)" }.sorted()
        #expect(stored == ["apns apns-token sandbox ", "liveActivityStart start-token production ",
                           "liveActivityUpdate update-token production build-7"])

        let before = try await kai.client.notificationSettings()
        let detailed = try await kai.client.setNotificationSettings(showDetails: !before.showDetails)
        #expect(detailed.showDetails == !before.showDetails)
        #expect(detailed.liveActivities == before.liveActivities && detailed.timeSensitive == before.timeSensitive)
        #expect(try await kai.client.notificationSettings() == detailed)
        await kai.stop()
    }
}
