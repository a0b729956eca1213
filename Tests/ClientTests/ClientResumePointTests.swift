import Foundation
import SwitchboardClient
import Testing

/// A device without a stored offset starts at the live end; that `latestOffset` is then its resume point. An event
/// committed while that first connection dies must come with the next connection, not be skipped by a second fresh
/// start at the (newer) live end.
@Suite struct ClientResumePointTests {
    /// Delegates to the loop transport; the first connection publishes an event right after its welcome and then
    /// dies without a close frame before the event is read, as a lost network would.
    final class FirstConnectionDies: WebSocketTransport, @unchecked Sendable {
        // @unchecked: `received` is touched only by the client's single reader of this connection.
        let inner = SwitchboardClient.Configuration.platformTransport()
        let isFirst: Bool
        let publish: @Sendable () throws -> Void
        private var received = 0

        init(isFirst: Bool, publish: @escaping @Sendable () throws -> Void) {
            self.isFirst = isFirst
            self.publish = publish
        }

        func connect(to url: WebSocketURL) async throws { try await inner.connect(to: url) }
        func send(text: String) async throws { try await inner.send(text: text) }
        func close(code: UInt16) async { await inner.close(code: code) }
        func receive() async throws -> String {
            received += 1
            if isFirst && received == 2 {  // the welcome was read
                try publish()
                await inner.close(code: 1001)
                throw TransportError.closed(code: nil)
            }
            return try await inner.receive()
        }
    }

    @Test(.timeLimit(.minutes(1))) func anEventLostWithTheFirstConnectionComesWithTheNext() async throws {
        let server = try GatewayTestServer()
        let port = server.port
        #expect(try server.api("POST", "/v1/users", ["userId": "noa"]).status == 201)
        for n in 1...3 { #expect(try server.api("POST", "/v1/users/noa/events", ["name": "old", "payload": ["n": n]]).status == 201) }
        let attempts = Counter()
        let offsets = InMemoryOffsetStore()
        let device = TestDevice(port: { port }, user: "noa", device: "noa-phone", offsetStore: offsets, configure: { configuration in
            configuration.transport = {
                FirstConnectionDies(isFirst: attempts.next() == 0) {
                    let response = try GatewayHTTP.request(port: port, "POST", "/v1/users/noa/events", ["name": "step", "payload": ["seq": 1]])
                    guard response.status == 201 else { throw TestFailure("publish answered \(response.status)") }
                }
            }
        })
        await device.start()
        let events = try await device.waitFor("the event published as the first connection died") {
            ClientCrashTests.sequence($0) == [1]
        }
        #expect(!events.contains { if case .custom("old", _) = $0 { true } else { false } }, "events before the first welcome are not replayed")
        try await ClientRestoredServerTests.waitUntil("the event's offset stored") { offsets.load() == 4 }
        await device.stop()
    }
}
