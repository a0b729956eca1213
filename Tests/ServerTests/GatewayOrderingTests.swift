import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Messages sent back to back, each with a `clientMessageId` (so each first looks its key up in the store), must still
/// reach the recipient in the order they were sent.
@Suite struct GatewayOrderingTests {
    @Test func pipelinedIdempotentMessagesArriveInOrder() throws {
        let server = try GatewayTestServer()
        try GatewayMessagingTests.makeUsers(server)
        let alice = try server.connect(user: "alice", device: "alice-phone")
        let bob = try server.connect(user: "bob", device: "bob-phone")
        let count = 200
        for i in 0..<count {
            alice.send(["id": "m\(i)", "type": "send_message", "to": "bob", "text": "n\(i)", "clientMessageId": "k\(i)"])
        }
        var texts: [String] = []
        for _ in 0..<count {
            let event = try bob.next("message", timeout: 10)
            texts.append(GatewayJSON.string(event, "data", "text") ?? "?")
        }
        #expect(texts == (0..<count).map { "n\($0)" })
    }
}
