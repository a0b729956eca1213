import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// One id grammar for users, devices, sessions and groups, enforced the same way at the token, on the socket and in
/// the server API, with API path segments percent-decoded before lookup (real sockets).
@Suite struct IdentifierGrammarTests {
    @Test func anAPIPathSegmentIsPercentDecodedBeforeLookup() throws {
        let server = try GatewayTestServer()
        #expect(try server.api("POST", "/v1/users", ["userId": "quote'x", "displayName": "Q"]).status == 201)
        let encoded = try server.api("GET", "/v1/users/quote%27x")
        #expect(encoded.status == 200)
        #expect(GatewayJSON.string(encoded.json, "userId") == "quote'x")
        #expect(try server.api("GET", "/v1/users/quote'x").status == 200)
        // Upper- and lower-case hex, and route words may be encoded too.
        #expect(try server.api("GET", "/v1/%75sers/quote%2cx%27").status == 404)
        #expect(try server.api("GET", "/v1/%75sers/quote%27%78").status == 200)
    }

    @Test func aMalformedEscapeIsInvalidPathAndADecodedIdOutsideTheGrammarIsInvalidID() throws {
        let server = try GatewayTestServer()
        for path in ["/v1/users/a%ZZ", "/v1/users/a%2", "/v1/users/%FF", "/v1/users/%C3"] {
            let response = try server.api("GET", path)
            #expect(response.status == 400, "\(path)")
            #expect(response.errorCode == "invalid_path", "\(path)")
            #expect(GatewayJSON.string(response.json, "error", "message") != nil)
        }
        for path in ["/v1/users/a%2Fb", "/v1/users/a%20b", "/v1/users/caf%C3%A9", "/v1/users/%2E%2E", "/v1/sessions/s%00", "/v1/users/a%25b"] {
            let response = try server.api("GET", path)
            #expect(response.status == 400, "\(path)")
            #expect(response.errorCode == "invalid_id", "\(path)")
        }
    }

    @Test func anAPIBodyNamingAnIdOutsideTheGrammarIsInvalidID() throws {
        let server = try GatewayTestServer()
        for body: [String: Any] in [["userId": "a b"], ["userId": "a/b"], ["userId": "zoë"], ["userId": String(repeating: "x", count: 129)]] {
            let response = try server.api("POST", "/v1/users", body)
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_id")
        }
        #expect(try server.api("POST", "/v1/users", ["userId": String(repeating: "x", count: 128)]).status == 201)
        #expect(try server.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s 1"]).errorCode == "invalid_id")
        #expect(try server.api("POST", "/v1/contacts", ["userA": "ann", "userB": "b\u{7}"]).errorCode == "invalid_id")
    }

    @Test func aTokenWhoseSubOrDeviceIdIsOutsideTheGrammarIsAnInvalidClaim() throws {
        let server = try GatewayTestServer()
        for (user, device) in [("a b", "d1"), ("a/b", "d1"), ("zoë", "d1"), ("ann", "phone 1"), ("ann", "d\u{202E}1")] {
            let token = GatewayTestServer.token(user: user, device: device)
            let response = try GatewayAuthTests.upgrade(server, query: "?token=" + token)
            #expect(response.status == 401, "\(user) \(device)")
            #expect(GatewayJSON.string(response.json, "error", "message")?.hasPrefix("invalid_claim") == true, "\(user) \(device)")
        }
        // The same rule for a token sent in `auth` after the upgrade: an error naming the claim, then 4003.
        let late = try GatewayTestClient(port: server.port, path: "/v1/ws")
        let reply = try late.command("auth", ["token": GatewayTestServer.token(user: "a b", device: "d1")])
        #expect(GatewayJSON.string(reply, "error", "code") == "token_invalid")
        #expect(GatewayJSON.string(reply, "error", "message")?.hasPrefix("invalid_claim") == true)
        #expect(try late.closeCode() == 4003)
        // Every id a token may carry can be addressed through the API.
        let quoted = try server.connect(user: "o'neil@example.com", device: "phone:1")
        #expect(GatewayJSON.bool(try quoted.command("presence"), "ok") == true)
        #expect(try server.api("GET", "/v1/users/o%27neil%40example.com").status == 200)
    }

    @Test func aCommandNamingAnIdOutsideTheGrammarIsInvalidID() throws {
        let server = try GatewayTestServer()
        let ann = try server.connect(user: "ann", device: "a1")
        let commands: [(String, [String: Any])] = [
            ("send_message", ["to": "bob smith", "text": "hi"]),
            ("history", ["with": "a/b"]),
            ("session_get", ["sessionId": "s\u{202E}1"]),
            ("contact_pause", ["userId": ""]),
            ("group_get", ["groupId": "g#1"]),
        ]
        for (type, fields) in commands {
            let reply = try ann.command(type, fields)
            #expect(GatewayJSON.string(reply, "error", "code") == "invalid_id", "\(type)")
        }
        // A well-formed id that names nobody is still that command's own error.
        #expect(GatewayJSON.string(try ann.command("send_message", ["to": "bob", "text": "hi"]), "error", "code") != "invalid_id")
    }
}
