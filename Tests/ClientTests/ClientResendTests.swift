import Foundation
import SwitchboardClient
import Testing

/// A transport that drops its connection instead of sending the first frame of one command type: the client cannot
/// know whether the gateway got it.
final class DroppingTransport: WebSocketTransport, @unchecked Sendable {
    // @unchecked: `inner` is Sendable; `drops` is a locked counter shared by the client's transports.
    let inner = LoopWebSocketTransport()
    let dropType: String
    let drops: Recorder<String>
    init(dropping type: String, drops: Recorder<String>) { dropType = type; self.drops = drops }
    func connect(to url: WebSocketURL) async throws { try await inner.connect(to: url) }
    func send(text: String) async throws {
        if drops.all.isEmpty, case .object(let frame)? = try? JSONValue.parse(Array(text.utf8)), frame["type"] == .string(dropType) {
            drops.append(dropType)
            await inner.close(code: 1001)
            throw TransportError.closed(code: nil)
        }
        try await inner.send(text: text)
    }
    func receive() async throws -> String { try await inner.receive() }
    func close(code: UInt16) async { await inner.close(code: code) }
}

/// What happens to a command in flight when the connection drops, against a real gateway: one that would act twice
/// (a second group) fails with `connectionLost` and is not sent again; an idempotent one is sent again and answered.
@Suite struct ClientResendTests {
    static func device(_ server: GatewayTestServer, dropping type: String, drops: Recorder<String>) -> TestDevice {
        let port = server.port
        return TestDevice(port: { port }, user: "ivy", device: "ivy-phone", configure: { configuration in
            configuration.transport = { DroppingTransport(dropping: type, drops: drops) }
        })
    }

    @Test(.timeLimit(.minutes(1))) func aGroupCreatedWhenTheConnectionDropsIsNotCreatedTwice() async throws {
        let server = try GatewayTestServer()
        let drops = Recorder<String>()
        let ivy = Self.device(server, dropping: "group_create", drops: drops)
        await ivy.start()
        try await ivy.waitConnected()
        await #expect { try await ivy.client.createGroup(name: "Book club") } throws: { error in
            if case .connectionLost? = error as? ClientError { true } else { false }
        }
        #expect(drops.all == ["group_create"])
        try await ivy.waitConnected(times: 2)
        // The frame never reached the gateway, and the client did not send it again.
        #expect(try await ivy.client.groups().isEmpty)
        #expect(try await ivy.client.createGroup(name: "Book club").name == "Book club")
        #expect(try await ivy.client.groups().count == 1)
        await ivy.stop()
    }

    @Test(.timeLimit(.minutes(1))) func aGroupMessageInFlightIsSentAgainAndAnswered() async throws {
        let server = try GatewayTestServer()
        let drops = Recorder<String>()
        let ivy = Self.device(server, dropping: "group_send_message", drops: drops)
        await ivy.start()
        try await ivy.waitConnected()
        let group = try await ivy.client.createGroup(name: "Book club")
        let sent = try await ivy.client.sendGroupMessage("chapter 3 tonight", to: group.groupId)
        #expect(drops.all == ["group_send_message"] && sent.sentAt > 0)
        let events = try await ivy.waitFor("the group message") { $0.contains { if case .groupMessage = $0 { true } else { false } } }
        #expect(events.filter { if case .groupMessage = $0 { true } else { false } }.count == 1)
        await ivy.stop()
    }
}
