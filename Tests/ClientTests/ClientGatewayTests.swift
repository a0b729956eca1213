import Foundation
import SwitchboardClient
import Testing

/// The Swift client against a real in-process gateway: token refresh, approvals from two devices, handoff,
/// queued commands and idempotent sends.
@Suite struct ClientGatewayTests {
    @Test(.timeLimit(.minutes(1))) func anExpiredTokenIsReplacedAndTheClientConnects() async throws {
        let server = try GatewayTestServer()
        let port = server.port
        let device = TestDevice(port: { port }, user: "tia", device: "tia-phone") { request in
            // The cached token has expired (beyond the 30 s leeway); only a rejection makes the app mint a new one.
            GatewayTestServer.token(user: "tia", device: "tia-phone", expiresIn: request == .rejected ? 3600 : -3600)
        }
        await device.start()
        try await device.waitConnected()
        #expect(device.tokens.all == [.initial, .rejected])
        let refused = device.events.contains {
            if case .connection(.waitingToReconnect(_, .upgradeRejected(401))) = $0 { return true } else { return false }
        }
        #expect(refused, "the first attempt must have been refused with 401")
        await device.stop()
    }

    @Test(.timeLimit(.minutes(1))) func approvalRaceFromTwoDevicesHasExactlyOneWinner() async throws {
        let server = try GatewayTestServer()
        let port = server.port
        _ = try server.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1", "title": "Build"])
        let phone = TestDevice(port: { port }, user: "ann", device: "ann-phone")
        let desk = TestDevice(port: { port }, user: "ann", device: "ann-desk", clientType: "desktop")
        await phone.start()
        await desk.start()
        try await phone.waitConnected()
        try await desk.waitConnected()
        let created = try server.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "rm -rf build", "timeoutSeconds": 60])
        let requestId = try #require(GatewayJSON.string(created.json, "requestId"))

        for device in [phone, desk] {
            let events = try await device.waitFor("approval_request") { $0.contains { if case .approvalRequest = $0 { true } else { false } } }
            for case .approvalRequest(let approval) in events {
                #expect(approval.requestId == requestId && approval.state == "pending")
                let remaining = approval.remainingSeconds(nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
                #expect(remaining > 50 && remaining <= 60, "remaining \(remaining)")
            }
        }

        async let fromPhone = Result(catching: { try await phone.client.approve(requestId) })
        async let fromDesk = Result(catching: { try await desk.client.deny(requestId) })
        let results = await [fromPhone, fromDesk]
        let winners = results.filter { if case .success = $0 { true } else { false } }
        #expect(winners.count == 1)
        for case .failure(let error) in results {
            #expect((error as? ClientError)?.isApprovalAlreadyResolved == true, "\(error)")
        }
        guard case .success(let decided)? = winners.first else { return }
        for device in [phone, desk] {
            let events = try await device.waitFor("approval_resolved") { $0.contains { if case .approvalResolved = $0 { true } else { false } } }
            for case .approvalResolved(let resolved) in events {
                #expect(resolved.requestId == requestId && resolved.state == decided.state && resolved.decidedBy == decided.decidedBy)
            }
        }
        await phone.stop()
        await desk.stop()
    }

    @Test(.timeLimit(.minutes(1))) func attachingOnAnotherDeviceHandsTheSessionOff() async throws {
        let server = try GatewayTestServer()
        let port = server.port
        _ = try server.api("POST", "/v1/sessions", ["userId": "hal", "sessionId": "run1", "title": "deploy"])
        let desk = TestDevice(port: { port }, user: "hal", device: "hal-desk", clientType: "desktop")
        let phone = TestDevice(port: { port }, user: "hal", device: "hal-phone")
        await desk.start()
        await phone.start()
        try await desk.waitConnected()
        try await phone.waitConnected()

        let first = try await desk.client.attach(session: "run1")
        #expect(first.activeClient?.deviceId == "hal-desk")
        let second = try await phone.client.attach(session: "run1")
        #expect(second.activeClient?.deviceId == "hal-phone")
        for device in [desk, phone] {
            let events = try await device.waitFor("handoff to the phone") { events in
                events.contains { if case .sessionHandoff(let h) = $0 { h.handedOffTo.deviceId == "hal-phone" } else { false } }
            }
            for case .sessionHandoff(let handoff) in events where handoff.handedOffTo.deviceId == "hal-phone" {
                #expect(handoff.sessionId == "run1")
                #expect(handoff.previous == DeviceRef(deviceId: "hal-desk", clientType: "desktop"))
                #expect(handoff.handedOffTo == DeviceRef(deviceId: "hal-phone", clientType: "ios"))
            }
        }
        await desk.stop()
        await phone.stop()
    }

    @Test(.timeLimit(.minutes(1))) func commandsIssuedBeforeConnectingAreSentInOrderAndRetriesNeverDuplicate() async throws {
        let (server, amy, bo) = try Self.contacts("amy", "bo")
        defer { withExtendedLifetime(server) {} }  // serving until the end of the test
        await bo.start()
        try await bo.waitConnected()

        // Not connected yet: the three sends wait in the queue and go out in order after the welcome.
        let sends = Task {
            var results: [SentMessage] = []
            for text in ["one", "two", "three"] { results.append(try await amy.client.send(message: text, to: "bo", clientMessageId: "m-\(text)")) }
            return results
        }
        try await Self.waitUntilQueued(1, amy.client)  // the first send waits in the queue before we connect
        await amy.start()
        let sent = try await sends.value
        #expect(sent.map(\.messageId) == sent.map(\.messageId).sorted())
        // A retry with the same clientMessageId returns the first result and delivers nothing new.
        let retry = try await amy.client.send(message: "one", to: "bo", clientMessageId: "m-one")
        #expect(retry == sent[0])
        let last = try await amy.client.send(message: "four", to: "bo", clientMessageId: "m-four")
        let texts = try await bo.waitFor("four messages") { events in
            events.contains { if case .message(let m) = $0 { m.messageId == last.messageId } else { false } }
        }.compactMap { event -> String? in if case .message(let m) = event { m.text } else { nil } }
        #expect(texts == ["one", "two", "three", "four"])

        // Bounded queue: a stopped client refuses new commands with a precise error.
        await amy.stop()
        await #expect(throws: ClientError.self) { try await amy.client.send(message: "late", to: "bo") }
        await bo.stop()
    }

    @Test(.timeLimit(.minutes(1))) func pipelinedSendsGoOutInCallOrderAndEachGetsItsOwnReply() async throws {
        let (server, cy, di) = try Self.contacts("cy", "di")
        defer { withExtendedLifetime(server) {} }  // serving until the end of the test
        await di.start()
        await cy.start()
        try await di.waitConnected()
        try await cy.waitConnected()

        // 40 queued without waiting for any reply: they go out in call order, so they commit in that order.
        var replies: [Task<SentMessage, any Error>] = []
        for n in 1...40 { replies.append(try await cy.client.enqueue(message: "\(n)", to: "di", clientMessageId: "p-\(n)")) }
        var sent: [SentMessage] = []
        for reply in replies { sent.append(try await reply.value) }
        #expect(Set(sent.map(\.messageId)).count == 40)
        #expect(sent.map(\.messageId) == sent.map(\.messageId).sorted())
        let texts = try await di.waitFor("40 messages") { events in
            events.contains { if case .message(let m) = $0 { m.text == "40" } else { false } }
        }.compactMap { event -> String? in if case .message(let m) = event { m.text } else { nil } }
        #expect(texts == (1...40).map { "\($0)" })
        // A refusal ends that reply's task with the server's error, and the ones queued behind it still succeed.
        let refused = try await cy.client.enqueue(message: "x", to: "nobody", clientMessageId: "p-x")
        let after = try await cy.client.enqueue(message: "41", to: "di", clientMessageId: "p-41")
        await #expect(throws: ClientError.self) { try await refused.value }
        #expect(try await after.value.messageId > sent[39].messageId)

        await cy.stop()
        await #expect(throws: ClientError.stopped(reason: "the client is stopped")) {
            try await cy.client.enqueue(message: "late", to: "di")
        }
        await di.stop()
    }

    @Test(.timeLimit(.minutes(1))) func theQueueIsBounded() async throws {
        var configuration = SwitchboardClient.Configuration(url: "ws://127.0.0.1:1/v1/ws") { _ in "unused" }
        configuration.maxQueuedCommands = 2
        let client = SwitchboardClient(configuration)  // never connected: commands wait
        let waiting = (0..<2).map { _ in Task { try await client.presence() } }
        try await Self.waitUntilQueued(2, client)
        await #expect(throws: ClientError.queueFull) { try await client.presence() }
        await client.disconnect()
        for task in waiting {
            await #expect(throws: ClientError.stopped(reason: "disconnected by the app")) { try await task.value }
        }
    }
}

extension ClientGatewayTests {
    /// Waits (polling the client's queue, up to 10 s) until `count` commands wait for a connection.
    /// A fresh gateway where `a` and `b` are contacts, and a (not yet started) phone client for each.
    static func contacts(_ a: String, _ b: String) throws -> (GatewayTestServer, TestDevice, TestDevice) {
        let server = try GatewayTestServer()
        let port = server.port
        for id in [a, b] { #expect(try server.api("POST", "/v1/users", ["userId": id]).status == 201) }
        #expect(try server.api("POST", "/v1/contacts", ["userA": a, "userB": b]).status == 200)
        return (server, TestDevice(port: { port }, user: a, device: "\(a)-phone"), TestDevice(port: { port }, user: b, device: "\(b)-phone"))
    }

    static func waitUntilQueued(_ count: Int, _ client: SwitchboardClient) async throws {
        let deadline = Date().addingTimeInterval(10)
        while await client.queuedCommandCount < count {
            guard Date() < deadline else { throw TestFailure("fewer than \(count) commands were queued within 10 s") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
