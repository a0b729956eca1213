import Foundation
import SwitchboardClient
import Testing

/// A transport that records the `type` of every frame the client sends, over the real loop transport.
final class RecordingTransport: WebSocketTransport, @unchecked Sendable {
    // @unchecked: `inner` is itself Sendable; `sent` is a locked recorder.
    let inner = LoopWebSocketTransport()
    let sent: Recorder<String>
    init(sent: Recorder<String>) { self.sent = sent }
    func connect(to url: WebSocketURL) async throws { try await inner.connect(to: url) }
    func send(text: String) async throws {
        if case .object(let frame)? = try? JSONValue.parse(Array(text.utf8)), case .string(let type)? = frame["type"] {
            sent.append(type)
        }
        try await inner.send(text: text)
    }
    func receive() async throws -> String { try await inner.receive() }
    func close(code: UInt16) async { await inner.close(code: code) }
}

/// The Swift client's whole typed surface against a real in-process gateway over real sockets: standalone
/// registration and display name over HTTP, every typed command (the frames sent cover ``ClientCommandKind``), and
/// the typed events they cause on the other devices (none arrives as `.other`).
@Suite struct ClientTypedSurfaceTests {
    static func code(_ error: any Error) -> String? {
        if case .server(let code, _)? = error as? ClientError { return code }
        return nil
    }

    static func device(
        _ port: UInt16, _ user: String, sent: Recorder<String>,
        token: (@Sendable (SwitchboardClient.TokenRequest) -> String)? = nil
    ) -> TestDevice {
        TestDevice(port: { port }, user: user, device: "\(user)-phone", token: token) { configuration in
            configuration.transport = { RecordingTransport(sent: sent) }
        }
    }

    static func first<T>(_ device: TestDevice, _ what: String, _ pick: @escaping (ClientEvent) -> T?) async throws -> T
    {
        let events = try await device.waitFor(what) { $0.contains { pick($0) != nil } }
        return try #require(events.lazy.compactMap(pick).first)
    }

    @Test(.timeLimit(.minutes(2))) func everyTypedCommandAndItsEventsAgainstARealGateway() async throws {
        let server = try GatewayTestServer()
        let port = server.port
        let gateway = "http://127.0.0.1:\(port)"
        let sent = Recorder<String>()

        // Standalone registration and display name over HTTP; the registered token connects the client.
        let identity = DeviceIdentity(deviceToken: DeviceIdentity.generateDeviceToken())
        let registration = try await StandaloneDevice.register(
            gateway: gateway, deviceToken: identity.deviceToken, platform: .ios)
        #expect(registration.userId.hasPrefix("usr_") && registration.hexCode.count == 8)
        #expect(
            try await StandaloneDevice.register(
                gateway: "ws://127.0.0.1:\(port)/v1/ws", deviceToken: identity.deviceToken
            ).userId == registration.userId,
            "the same secret is the same user (a ws:// URL names the same gateway)")
        await #expect {
            try await StandaloneDevice.register(gateway: gateway, deviceToken: "aaaaaaaaaaaaaaaaaaaa")
        } throws: {
            Self.code($0) == "device_token_too_weak"
        }
        let named = try await StandaloneDevice.setDisplayName("Ann", gateway: gateway, token: registration.token)
        #expect(named.userId == registration.userId && named.name == "Ann")
        await #expect {
            try await StandaloneDevice.setDisplayName("", gateway: gateway, token: registration.token)
        } throws: {
            Self.code($0) == "display_name_invalid"
        }
        let ann = registration.userId
        let annDevice = TestDevice(
            port: { port }, user: ann, device: registration.deviceId, token: { _ in registration.token }
        ) { configuration in
            configuration.transport = { RecordingTransport(sent: sent) }
        }
        for user in ["bob", "cyd"] { #expect(try server.api("POST", "/v1/users", ["userId": user]).status == 201) }
        let bob = Self.device(port, "bob", sent: sent)
        let cyd = Self.device(port, "cyd", sent: sent)
        for device in [annDevice, bob, cyd] { await device.start() }
        for device in [annDevice, bob, cyd] { try await device.waitConnected() }
        let a = annDevice.client, b = bob.client, c = cyd.client

        // Contacts by code; pause, resume, an event; messages, presence.
        let code = try await b.connectCode()
        #expect(try await a.connect(code: code.code).userId == "bob")
        #expect(
            try await Self.first(bob, "contact_added") { if case .contactAdded(let u) = $0 { u } else { nil } }.name
                == "Ann")
        #expect(try await a.contacts().map(\.user.userId) == ["bob"])
        #expect(try await a.pauseContact("bob").pausedByMe)
        #expect(
            try await Self.first(bob, "contact_paused") { if case .contactPaused(let p) = $0 { p } else { nil } }.by
                == ann)
        await #expect { try await a.send(message: "paused", to: "bob") } throws: { Self.code($0) == "contact_paused" }
        #expect(try await a.resumeContact("bob").paused == false)
        #expect(
            try await Self.first(bob, "contact_resumed") { if case .contactResumed(let p) = $0 { p } else { nil } }
                .paused == false)
        _ = try await a.sendEvent("wave", payload: .object(["n": .int(1)]), to: "bob")
        let wave = try await Self.first(bob, "contact_event") { if case .contactEvent(let e) = $0 { e } else { nil } }
        #expect(wave.name == "wave" && wave.from.userId == ann && wave.payload == .object(["n": .int(1)]))
        let message = try await a.send(message: "hello", to: "bob")
        #expect(try await b.history(with: ann).messages.map(\.messageId) == [message.messageId])
        #expect(try await b.unreadCounts()[ann] == 1)
        try await b.markRead(with: ann, upTo: message.messageId)
        #expect(try await b.setPresence(.away).status == "away")
        try await b.appState(.background)
        try await b.appState(.foreground)
        #expect(try await a.presence().map(\.userId) == ["bob"])

        // Groups and invites: created, joined by code, messages and events, left and removed.
        let group = try await a.createGroup(
            name: "Family", kind: "family", maxMembers: 4, invitePolicy: .owner, roleLimits: ["parent": 2])
        #expect(group.owner.userId == ann && group.invitePolicy == "owner" && group.roleLimits == ["parent": 2])
        #expect(
            try await Self.first(annDevice, "group_created") { if case .groupCreated(let g) = $0 { g } else { nil } }
                .groupId == group.groupId)
        let invite = try await a.createInvite(toGroup: group.groupId, role: "parent", expiresInHours: 24)
        #expect(invite.role == "parent" && invite.state == "pending")
        #expect(
            try await Self.first(annDevice, "invite_created") { if case .inviteCreated(let i) = $0 { i } else { nil } }
                .code == invite.code)
        await #expect { try await b.createInvite(toGroup: group.groupId) } throws: {
            Self.code($0) == "group_not_found"
        }
        #expect(try await b.redeemInvite(code: invite.code.lowercased()).members.count == 2)
        let joined = try await Self.first(annDevice, "group_member_joined") {
            if case .groupMemberJoined(let j) = $0, j.member.user.userId == "bob" { j } else { nil }
        }
        #expect(joined.reason == "invite" && joined.member.role == "parent")
        let forCyd = try await a.createInvite(toGroup: group.groupId, for: .email("cyd@example.com"))
        #expect(forCyd.recipient == "cyd@example.com")
        _ = try await c.redeemInvite(code: forCyd.code)
        #expect(try await a.groups().map(\.groupId) == [group.groupId])
        #expect(try await b.group(group.groupId).members.map(\.user.userId).sorted() == ["bob", "cyd", ann].sorted())
        _ = try await b.sendGroupMessage("hi all", to: group.groupId)
        #expect(
            try await Self.first(annDevice, "group_message") { if case .groupMessage(let m) = $0 { m } else { nil } }
                .text == "hi all")
        _ = try await a.sendEvent("album", payload: nil, toGroup: group.groupId)
        #expect(
            try await Self.first(cyd, "group_event") { if case .groupEvent(let e) = $0 { e } else { nil } }.name
                == "album")
        try await c.leaveGroup(group.groupId)
        #expect(
            try await Self.first(annDevice, "cyd left") {
                if case .groupMemberLeft(let l) = $0, l.member.user.userId == "cyd" { l } else { nil }
            }.reason == "left")
        #expect(try await a.removeMember("bob", fromGroup: group.groupId).members.map(\.user.userId) == [ann])
        #expect(
            try await Self.first(bob, "bob removed") {
                if case .groupMemberLeft(let l) = $0, l.member.user.userId == "bob" { l } else { nil }
            }.reason == "removed")

        // Discovery of a number the backend attached.
        #expect(try server.api("PUT", "/v1/users/bob/phone", ["phone": "+4915112345678"]).status == 200)
        let entries = try await a.discover(numbers: ["+49 151 1234 5678", "+447700900123", "12"])
        #expect(entries.map(\.status) == ["contact", "invite", "invalid"] && entries[0].user?.userId == "bob")

        // Friend requests: rejected, cancelled, accepted.
        let annHex = registration.hexCode
        let first = try await c.sendFriendRequest(hexCode: annHex)
        #expect(try await a.friendRequests().incoming.map(\.requestId) == [first.requestId])
        #expect(try await a.rejectFriendRequest(first.requestId).state == "rejected")
        let second = try await c.sendFriendRequest(hexCode: annHex)
        #expect(try await c.cancelFriendRequest(second.requestId).state == "cancelled")
        let third = try await c.sendFriendRequest(hexCode: annHex)
        #expect(try await a.acceptFriendRequest(third.requestId).state == "accepted")

        // Blocking ends the contact; the block is listed and lifted.
        let block = try await a.block("cyd")
        #expect(block.user.userId == "cyd")
        #expect(
            try await Self.first(annDevice, "user_blocked") { if case .userBlocked(let b) = $0 { b } else { nil } }.user
                .userId == "cyd")
        #expect(
            try await Self.first(cyd, "contact_removed") { if case .contactRemoved(let id) = $0 { id } else { nil } }
                == ann)
        #expect(try await a.blocks().map(\.user.userId) == ["cyd"])
        try await a.unblock("cyd")
        #expect(
            try await Self.first(annDevice, "user_unblocked") { if case .userUnblocked(let b) = $0 { b } else { nil } }
                .user.userId == "cyd")
        #expect(try await a.blocks().isEmpty)
        try await a.removeContact("bob")
        #expect(
            try await Self.first(bob, "contact_removed by ann") {
                if case .contactRemoved(let id) = $0, id == ann { id } else { nil }
            } == ann)

        // Sessions, approvals, push tokens, notification settings.
        #expect(
            try server.api("POST", "/v1/sessions", ["userId": ann, "sessionId": "run1", "title": "deploy"]).status
                == 201)
        #expect(try await a.attach(session: "run1").activeClient?.deviceId == registration.deviceId)
        #expect(try await a.session("run1").title == "deploy")
        #expect(try await a.sessions().map(\.sessionId) == ["run1"])
        var requests: [String] = []
        for summary in ["rm -rf build", "drop table"] {
            let created = try server.api(
                "POST", "/v1/sessions/run1/approvals", ["toolName": "shell", "summary": summary, "timeoutSeconds": 60])
            requests.append(try #require(GatewayJSON.string(created.json, "requestId")))
        }
        #expect(try await a.pendingApprovals().badge == 2)
        #expect(try await a.approve(requests[0]).state == "approved")
        #expect(try await a.deny(requests[1], reason: "no").state == "denied")
        try await a.registerAPNs(token: "apns-token", environment: .sandbox)
        try await a.registerWebhookPush(token: "desk-1")
        try await a.unregisterPush(.apns)
        let settings = try await a.setNotificationSettings(contactUpdates: true)
        #expect(settings.contactUpdates)
        #expect(try await a.notificationSettings() == settings)

        // Every typed command went out at least once, and no documented event arrived untyped.
        try await annDevice.waitFor("an ack") { _ in sent.all.contains("ack") }
        let missing = Set(ClientCommandKind.allCases.map(\.rawValue)).subtracting(sent.all)
        #expect(missing.sorted() == [], "commands this test never sent")
        for device in [annDevice, bob, cyd] {
            let untyped = device.events.compactMap { if case .other(let type, _) = $0 { type } else { nil } }
            #expect(untyped == [], "events that arrived as .other")
        }
        for device in [annDevice, bob, cyd] { await device.stop() }
    }
}
