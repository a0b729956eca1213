import Foundation
import Glibc
import SwitchboardClient
import Testing

/// The Swift client against the real `switchboard` executable, killed with SIGKILL and restarted on the same port
/// and database: every event reaches the app exactly once, in order, and the handled offset survives in a file.
@Suite struct ClientCrashTests {
    @Test(.timeLimit(.minutes(1))) func reconnectAfterKill9LosesAndDuplicatesNothing() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: GatewayProcess.executable), "build the switchboard executable first")
        let directory = try TemporaryDirectory()
        var (process, port) = try GatewayProcess.launch(directory: directory)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        #expect(try GatewayHTTP.request(port: port, "POST", "/v1/users", ["userId": "kim"]).status == 201)

        let offsets = FileOffsetStore(path: directory.path + "/kim-phone.offset")
        let fixedPort = port
        let device = TestDevice(port: { fixedPort }, user: "kim", device: "kim-phone", offsetStore: offsets)
        await device.start()
        try await device.waitConnected()

        // A publisher keeps going while the gateway is killed, so some acknowledged events were never delivered.
        // It stays at most `window` events ahead of what the device handled, so the kill (after ten handled events)
        // always lands mid-stream however slowly this machine delivers.
        let window = 20
        let killed = Recorder<Bool>()
        let publisher = BackgroundCall { () -> Int in
            for seq in 1...2000 {
                while killed.all.isEmpty, (Self.sequence(device.events).last ?? 0) < seq - window {
                    usleep(1_000)
                }
                guard let r = try? GatewayHTTP.request(port: fixedPort, "POST", "/v1/users/kim/events",
                                                       ["name": "step", "payload": ["seq": seq]], timeoutSeconds: 2),
                      r.status == 201 else { return seq - 1 }
            }
            return 2000
        }
        try await device.waitFor("ten events before the kill") { Self.sequence($0).count >= 10 }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        killed.append(true)
        let acknowledged = try #require(publisher.wait(seconds: 10))
        #expect(acknowledged < 2000, "the kill must land mid-stream")

        // Same port, same database: the client reconnects by itself and resumes from what it handled.
        (process, port) = try GatewayProcess.launch(directory: directory, port: fixedPort)
        try await device.waitConnected(times: 2)
        for seq in 1...10 {
            let r = try GatewayHTTP.request(port: port, "POST", "/v1/users/kim/events", ["name": "step", "payload": ["seq": 10_000 + seq]])
            #expect(r.status == 201)
        }
        let events = try await device.waitFor("the events published after the restart") { Self.sequence($0).last == 10_010 }
        let seqs = Self.sequence(events)
        let before = seqs.filter { $0 < 10_000 }
        // Everything the publisher had acknowledged (and possibly a last one committed as the kill landed), once each.
        #expect(before == Array(1...before.count), "gap or duplicate before the kill: \(before)")
        #expect(before.count >= acknowledged)
        #expect(Array(seqs.dropFirst(before.count)) == Array(10_001...10_010))
        #expect(!events.contains { if case .resync = $0 { true } else { false } }, "nothing was pruned: no resync")

        // The file store holds the offset of the last handled event (the one before the newest, which is still
        // being "handled" until the app asks for the next event).
        await device.stop()
        let stored = try #require(FileOffsetStore(path: offsets.path).load())
        #expect(stored >= Int64(seqs.count - 1) && stored <= Int64(seqs.count))
    }

    /// The `seq` payloads of the `custom` events, in the order the app handled them.
    static func sequence(_ events: [ClientEvent]) -> [Int] {
        events.compactMap { event -> Int? in
            guard case .custom("step", .object(let payload)?) = event, let seq = payload["seq"]?.int64Value else { return nil }
            return Int(seq)
        }
    }
}

/// Commands issued while the server is down wait in the client's queue and go out, in order, after the resume.
@Suite struct ClientQueueAcrossRestartTests {
    @Test(.timeLimit(.minutes(1))) func sendsIssuedWhileTheServerIsDownAreSentInOrderAfterTheResume() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: GatewayProcess.executable), "build the switchboard executable first")
        let directory = try TemporaryDirectory()
        var (process, port) = try GatewayProcess.launch(directory: directory)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        for id in ["ari", "bea"] { #expect(try GatewayHTTP.request(port: port, "POST", "/v1/users", ["userId": id]).status == 201) }
        #expect(try GatewayHTTP.request(port: port, "POST", "/v1/contacts", ["userA": "ari", "userB": "bea"]).status == 200)
        let fixedPort = port
        let ari = TestDevice(port: { fixedPort }, user: "ari", device: "ari-phone")
        let bea = TestDevice(port: { fixedPort }, user: "bea", device: "bea-phone")
        for device in [ari, bea] { await device.start() }
        for device in [ari, bea] { try await device.waitConnected() }
        let before = try await ari.client.send(message: "before", to: "bea")

        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try await ari.waitFor("the connection lost") { events in
            events.contains { if case .connection(.waitingToReconnect) = $0 { true } else { false } }
        }
        let sends = Task {
            var sent: [SentMessage] = []
            for text in ["one", "two", "three"] { sent.append(try await ari.client.send(message: text, to: "bea")) }
            return sent
        }
        try await ClientGatewayTests.waitUntilQueued(1, ari.client)

        (process, port) = try GatewayProcess.launch(directory: directory, port: fixedPort)
        let sent = try await sends.value
        #expect(sent.map(\.messageId) == sent.map(\.messageId).sorted() && sent[0].messageId > before.messageId)
        let texts = try await bea.waitFor("the three messages") { events in
            events.contains { if case .message(let m) = $0 { m.messageId == sent[2].messageId } else { false } }
        }.compactMap { event -> String? in if case .message(let m) = event { m.text } else { nil } }
        #expect(texts == ["before", "one", "two", "three"])
        for device in [ari, bea] { await device.stop() }
    }
}
