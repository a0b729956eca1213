import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Direct messages and presence between real sockets, with contacts made through the server API.
@Suite struct GatewayMessagingTests {
    /// alice, bob and carol exist; alice and bob are contacts.
    static func makeUsers(_ server: GatewayTestServer) throws {
        for id in ["alice", "bob", "carol"] {
            #expect(try server.api("POST", "/v1/users", ["userId": id, "displayName": id.capitalized]).status == 201)
        }
        let contact = try server.api("POST", "/v1/contacts", ["userA": "alice", "userB": "bob"])
        #expect(contact.status == 200)
    }

    static func errorCode(_ reply: [String: Any]) -> String? { GatewayJSON.string(reply, "error", "code") }

    @Test func sendMessageValidatesAndTheConnectionStaysUsable() throws {
        let server = try GatewayTestServer()
        try Self.makeUsers(server)
        let alice = try server.connect(user: "alice", device: "alice-phone")
        let cases: [(text: String, to: String, code: String)] = [
            (" \n\t  ", "bob", "text_empty"),
            (String(repeating: "x", count: 501), "bob", "text_too_long"),
            ("hi carol", "carol", "not_a_contact"),
            ("hi nobody", "nobody", "not_a_contact"),
        ]
        for c in cases {
            let reply = try alice.command("send_message", ["to": c.to, "text": c.text])
            #expect(reply["ok"] as? Bool == false)
            #expect(Self.errorCode(reply) == c.code)
        }
        // 500 characters after trimming is exactly the limit.
        let longest = try alice.command("send_message", ["to": "bob", "text": "  " + String(repeating: "é", count: 500) + "\n"])
        #expect(longest["ok"] as? Bool == true)
    }

    @Test func aMessageReachesTheRecipientAndTheSendersOtherDevice() throws {
        let server = try GatewayTestServer()
        try Self.makeUsers(server)
        let phone = try server.connect(user: "alice", device: "alice-phone", clientType: "ios")
        let desktop = try server.connect(user: "alice", device: "alice-desk", clientType: "desktop")
        let bob = try server.connect(user: "bob", device: "bob-phone", clientType: "android")

        let reply = try phone.command("send_message", ["to": "bob", "text": "  hello bob  "])
        #expect(reply["ok"] as? Bool == true)
        let messageId = GatewayJSON.int(reply, "result", "messageId")
        #expect(messageId != nil)
        for device in [bob, desktop] {
            let event = try device.next("message")
            #expect(GatewayJSON.string(event, "data", "text") == "hello bob")
            #expect(GatewayJSON.string(event, "data", "from") == "alice")
            #expect(GatewayJSON.string(event, "data", "fromDisplayName") == "Alice")
            #expect(GatewayJSON.int(event, "data", "messageId") == messageId)
            #expect(GatewayJSON.int(event, "offset") != nil)
        }

        let history = try bob.command("history", ["with": "alice"])
        let messages = GatewayJSON.array(history, "result", "messages") ?? []
        #expect(messages.count == 1)
        #expect(GatewayJSON.string(messages.first, "text") == "hello bob")
        let unread = try bob.command("unread_counts")
        #expect(GatewayJSON.int(unread, "result", "counts", "alice") == 1)
        #expect(try bob.command("mark_read", ["with": "alice", "upTo": messageId ?? 0])["ok"] as? Bool == true)
        let after = try bob.command("unread_counts")
        #expect(GatewayJSON.int(after, "result", "counts", "alice") ?? 0 == 0)
    }

    @Test func oversizedAndBinaryFramesGetAnErrorAndTheSocketStaysUsable() throws {
        let server = try GatewayTestServer()
        try Self.makeUsers(server)
        let alice = try server.connect(user: "alice", device: "alice-phone")
        // Just over the 16 KiB command limit, well under the 64 KiB WebSocket message limit.
        let big = #"{"type":"send_message","id":"big","to":"bob","text":""# + String(repeating: "a", count: 16 * 1024) + #""}"#
        alice.send(text: big)
        let tooLarge = try alice.next("reply")
        #expect(Self.errorCode(tooLarge) == "message_too_large")
        #expect(tooLarge["id"] as? String == "big")          // recovered from the frame's first bytes
        #expect(try alice.command("presence")["ok"] as? Bool == true)

        alice.sendFrame(.binary, Array(#"{"type":"presence","id":"bin"}"#.utf8))
        let binary = try alice.next("reply")
        #expect(binary["ok"] as? Bool == false)
        #expect(Self.errorCode(binary) == "invalid_json")
        alice.send(text: "{not json")
        #expect(Self.errorCode(try alice.next("reply")) == "invalid_json")
        #expect(try alice.command("send_message", ["to": "bob", "text": "still here"])["ok"] as? Bool == true)
    }

    @Test func presenceGoesToContactsOnlyAndWaitsOutTheGrace() throws {
        let server = try GatewayTestServer() // presence grace 300 ms
        try Self.makeUsers(server)
        let bob = try server.connect(user: "bob", device: "bob-phone")
        let carol = try server.connect(user: "carol", device: "carol-phone")
        var alice = try server.connect(user: "alice", device: "alice-phone")

        let online = try bob.next { $0["type"] as? String == "presence" && GatewayJSON.string($0, "data", "userId") == "alice" }
        #expect(GatewayJSON.string(online, "data", "status") == "online")
        // alice asks for her contacts' presence: bob only, online.
        let listed = GatewayJSON.array(try alice.command("presence"), "result", "contacts") ?? []
        #expect(listed.count == 1)
        #expect(GatewayJSON.string(listed.first, "userId") == "bob")
        #expect(GatewayJSON.string(listed.first, "status") == "online")

        // A quick reconnect inside the grace period is invisible to contacts.
        alice.disconnect()
        alice = try server.connect(user: "alice", device: "alice-phone")
        #expect(try bob.collect("presence", for: 0.6).isEmpty)

        alice.disconnect()
        let left = Date()
        let offline = try bob.next("presence", timeout: 3)
        #expect(Date().timeIntervalSince(left) >= 0.25)
        #expect(GatewayJSON.string(offline, "data", "userId") == "alice")
        #expect(GatewayJSON.string(offline, "data", "status") == "offline")
        let lastSeen = GatewayJSON.int(offline, "data", "lastSeenAt") ?? 0
        #expect(abs(Double(lastSeen) / 1000 - Date().timeIntervalSince1970) < 5)
        #expect(try carol.collect("presence", for: 0.1).isEmpty)
    }
}
