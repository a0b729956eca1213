@testable import GatewayRuntime
@testable import Server
import Testing

/// Client commands and server-API bodies go through the one strict JSON parser: a duplicate key or a trailing comma
/// is `invalid_json`, never "first wins".
@Suite struct StrictJSONTests {
    @Test func aCommandWithADuplicateKeyOrATrailingCommaIsInvalidJSON() throws {
        let server = try GatewayTestServer()
        try GatewayMessagingTests.makeUsers(server)
        #expect(try server.api("POST", "/v1/contacts", ["userA": "alice", "userB": "carol"]).status == 200)
        let alice = try server.connect(user: "alice", device: "alice-phone")
        let bob = try server.connect(user: "bob", device: "bob-phone")
        let carol = try server.connect(user: "carol", device: "carol-phone")

        alice.send(text: #"{"id":"dup","type":"send_message","to":"bob","to":"carol","text":"which one?"}"#)
        let duplicate = try alice.next("reply")
        #expect(duplicate["ok"] as? Bool == false)
        #expect(GatewayMessagingTests.errorCode(duplicate) == "invalid_json")
        alice.send(text: #"{"id":"comma","type":"send_message","to":"bob","text":"trailing",}"#)
        #expect(GatewayMessagingTests.errorCode(try alice.next("reply")) == "invalid_json")
        alice.send(text: #"{"id":"dup-id","id":"other","type":"presence"}"#)
        #expect(GatewayMessagingTests.errorCode(try alice.next("reply")) == "invalid_json")

        // Nothing was sent to either user; the socket still works.
        #expect(try alice.command("send_message", ["to": "bob", "text": "valid"])["ok"] as? Bool == true)
        let received = try bob.collect("message", for: 0.3).compactMap { GatewayJSON.string($0, "data", "text") }
        #expect(received == ["valid"])
        #expect(try carol.collect("message", for: 0.1).isEmpty)
    }

    @Test func anAPIBodyWithADuplicateKeyOrATrailingCommaIsInvalidJSON() throws {
        let server = try GatewayTestServer()
        let duplicate = try server.api("POST", "/v1/users", #"{"userId":"a","userId":"b"}"#)
        #expect(duplicate.status == 400)
        #expect(duplicate.errorCode == "invalid_json")
        let comma = try server.api("POST", "/v1/users", #"{"userId":"a",}"#)
        #expect(comma.status == 400)
        #expect(comma.errorCode == "invalid_json")
        #expect(try server.api("GET", "/v1/users/a").status == 404)
        #expect(try server.api("GET", "/v1/users/b").status == 404)
        #expect(try server.api("POST", "/v1/users", #"{"userId":"a"}"#).status == 201)
    }
}
