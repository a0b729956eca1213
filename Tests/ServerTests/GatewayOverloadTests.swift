import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing
import WebSocketCodec

/// At its bound of pending commands the node refuses new ones at once with `overloaded` and a retry hint; every
/// command still gets exactly one reply, and what was accepted is stored and delivered in order.
@Suite struct GatewayOverloadTests {
    @Test func commandsBeyondTheBoundAreRefusedWithARetryHintAndNoneGoUnanswered() throws {
        let server = try GatewayTestServer { options in
            options.maxPendingCommands = 1
            options.overloadRetryAfterMs = 250
        }
        try GatewayMessagingTests.makeUsers(server)
        let alice = try server.connect(user: "alice", device: "alice-phone")
        let bob = try server.connect(user: "bob", device: "bob-phone")
        let count = 100
        // One write: the server reads the burst at once, far faster than one command can be stored.
        var burst: [UInt8] = []
        for i in 0..<count {
            let text = #"{"id":"m\#(i)","type":"send_message","to":"bob","text":"n\#(i)","clientMessageId":"k\#(i)"}"#
            burst += WebSocketFrameEncoder.frame(opcode: .text, payload: Array(text.utf8), maskKey: UInt32(i + 1))
        }
        alice.raw.send(burst)

        var accepted: [Int] = []
        var refused = 0
        for i in 0..<count {
            let reply = try alice.next(timeout: 10) { $0["type"] as? String == "reply" && $0["id"] as? String == "m\(i)" }
            if reply["ok"] as? Bool == true {
                accepted.append(i)
            } else {
                #expect(GatewayMessagingTests.errorCode(reply) == "overloaded")
                #expect(GatewayJSON.int(reply, "error", "retryAfterMs") == 250)
                refused += 1
            }
        }
        #expect(refused > 0)
        #expect(!accepted.isEmpty)
        var texts: [String] = []
        for _ in accepted {
            texts.append(GatewayJSON.string(try bob.next("message", timeout: 10), "data", "text") ?? "?")
        }
        #expect(texts == accepted.map { "n\($0)" })
        // Below the bound again a new command goes through, and it is the next message bob gets: the refused ones
        // stored nothing.
        let retry = try alice.command("send_message", ["to": "bob", "text": "again", "clientMessageId": "again"])
        #expect(retry["ok"] as? Bool == true)
        #expect(GatewayJSON.string(try bob.next("message", timeout: 10), "data", "text") == "again")
    }
}
