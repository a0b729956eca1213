import Auth
import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Client tokens on the upgrade and in the `auth` command, and the server API's key check, over real sockets.
@Suite struct GatewayAuthTests {
    /// Sends an upgrade to /v1/ws and returns the raw answer (status and JSON body).
    static func upgrade(_ server: GatewayTestServer, query: String, headers: [(String, String)] = []) throws -> GatewayHTTP.Response {
        let client = try RawClient(port: server.port)
        var request = "GET /v1/ws\(query) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        client.send(request + "\r\n")
        let response = try client.readResponse()
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return GatewayHTTP.Response(status: response.head.status, json: json)
    }

    static func unsigned(_ header: String, _ claims: String) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + "."
    }

    static let badTokens: [(String, String)] = {
        let exp = Int64(Date().timeIntervalSince1970) + 3600
        let hmac = JWTKey.hmac(secret: Array(GatewayTestServer.secret.utf8))
        let noDevice = try! JWTSigner.sign(claims: ["sub": .string("u1"), "client_type": .string("ios"), "exp": .int(exp)], key: hmac)
        return [
            ("expired", GatewayTestServer.token(user: "u1", device: "d1", expiresIn: -3600)),
            ("other secret", GatewayTestServer.token(user: "u1", device: "d1", secret: "some-other-secret-0123456789abcdef")),
            ("alg none", unsigned(#"{"alg":"none","typ":"JWT"}"#, #"{"sub":"u1","device_id":"d1","client_type":"ios","exp":\#(exp)}"#)),
            ("no device_id", noDevice),
            ("bad client_type", GatewayTestServer.token(user: "u1", device: "d1", clientType: "toaster")),
            ("garbage", "not-a-jwt"),
        ]
    }()

    @Test func badTokensOnTheUpgradeAreAnswered401() throws {
        let server = try GatewayTestServer()
        for (name, token) in Self.badTokens {
            let response = try Self.upgrade(server, query: "?token=\(token)")
            #expect(response.status == 401, "\(name)")
            #expect(response.errorCode == "token_invalid", "\(name)")
        }
        // The same token rejected in the query is also rejected in the Authorization header.
        let header = try Self.upgrade(server, query: "", headers: [("Authorization", "Bearer " + Self.badTokens[1].1)])
        #expect(header.status == 401)
    }

    @Test func aSocketWithoutATokenMustAuthenticateFirst() throws {
        let server = try GatewayTestServer()
        let client = try GatewayTestClient(port: server.port, path: "/v1/ws")
        let refused = try client.command("presence")
        #expect(refused["ok"] as? Bool == false)
        #expect(GatewayJSON.string(refused, "error", "code") == "unauthenticated")
        let token = GatewayTestServer.token(user: "alice", device: "alice-phone")
        let accepted = try client.command("auth", ["token": token])
        #expect(accepted["ok"] as? Bool == true)
        #expect(GatewayJSON.string(accepted, "result", "userId") == "alice")
        let welcome = try client.next("welcome")
        #expect(GatewayJSON.string(welcome, "data", "deviceId") == "alice-phone")
        #expect(GatewayJSON.string(welcome, "data", "clientType") == "ios")
        // Now commands reach the hub.
        #expect(try client.command("presence")["ok"] as? Bool == true)
    }

    @Test func anUnauthenticatedSocketIsClosedWith4001AfterTheTimeout() throws {
        let server = try GatewayTestServer { $0.authTimeoutMs = 300 }
        let client = try GatewayTestClient(port: server.port, path: "/v1/ws")
        let start = Date()
        #expect(try client.closeCode(timeout: 3) == 4001)
        #expect(Date().timeIntervalSince(start) >= 0.25)
    }

    @Test func authWithABadTokenGetsAnErrorThenClose4003() throws {
        let server = try GatewayTestServer()
        let client = try GatewayTestClient(port: server.port, path: "/v1/ws")
        let reply = try client.command("auth", ["token": GatewayTestServer.token(user: "u", device: "d", expiresIn: -3600)])
        #expect(reply["ok"] as? Bool == false)
        #expect(GatewayJSON.string(reply, "error", "code") == "token_invalid")
        #expect(try client.closeCode() == 4003)
    }

    @Test func theTokenMayComeInTheAuthorizationHeader() throws {
        let server = try GatewayTestServer()
        let token = GatewayTestServer.token(user: "bob", device: "bob-desk", clientType: "desktop")
        let client = try GatewayTestClient(port: server.port, path: "/v1/ws", headers: [("Authorization", "Bearer \(token)")])
        let welcome = try client.next("welcome")
        #expect(GatewayJSON.string(welcome, "data", "userId") == "bob")
        #expect(GatewayJSON.string(welcome, "data", "clientType") == "desktop")
    }

    @Test func theTokenMayComeAsABearerSubprotocol() throws {
        let server = try GatewayTestServer()
        let token = GatewayTestServer.token(user: "carol", device: "carol-web", clientType: "web")
        let client = try GatewayTestClient(port: server.port, path: "/v1/ws", subprotocols: ["switchboard.v1", "bearer.\(token)"])
        #expect(client.handshake.headers["Sec-WebSocket-Protocol"] == "switchboard.v1")
        let welcome = try client.next("welcome")
        #expect(GatewayJSON.string(welcome, "data", "userId") == "carol")
        // A bad bearer subprotocol is refused like any bad token.
        let refused = try Self.upgrade(server, query: "", headers: [("Sec-WebSocket-Protocol", "switchboard.v1, bearer.garbage")])
        #expect(refused.status == 401)
    }

    @Test func theServerAPIChecksTheKeyAndTheBody() throws {
        let server = try GatewayTestServer()
        let none = try server.api("POST", "/v1/users", ["userId": "u1"], key: nil)
        #expect(none.status == 401)
        #expect(none.errorCode == "unauthenticated")
        let wrong = try server.api("POST", "/v1/users", ["userId": "u1"], key: "wrong-api-key-0123456789")
        #expect(wrong.status == 401)
        #expect(try server.api("GET", "/v1/users/u1").status == 404) // nothing was created by the refused calls
        let created = try server.api("POST", "/v1/users", ["userId": "u1", "displayName": "Una"])
        #expect(created.status == 201)   // created
        #expect(GatewayJSON.string(created.json, "displayName") == "Una")
        let renamed = try server.api("POST", "/v1/users", ["userId": "u1", "displayName": "Uma"])
        #expect(renamed.status == 200)   // the same user, updated: nothing created
        #expect(GatewayJSON.string(renamed.json, "hexCode") == GatewayJSON.string(created.json, "hexCode"))
        let unknownContact = try server.api("POST", "/v1/contacts", ["userA": "u1", "userB": "nobody"])
        #expect(unknownContact.status == 404)
        #expect(unknownContact.errorCode == "user_not_found")   // and it says how users come to exist
        #expect(GatewayJSON.string(unknownContact.json, "error", "message")?.contains("POST /v1/users") == true)
        let read = try server.api("GET", "/v1/users/u1")
        #expect(read.status == 200)
        #expect(GatewayJSON.string(read.json, "hexCode")?.count == 8)
        let badJSON = try server.api("POST", "/v1/users", "{\"userId\":")
        #expect(badJSON.status == 400)
        #expect(badJSON.errorCode == "invalid_json")
        let missing = try server.api("POST", "/v1/users", ["displayName": "x"])
        #expect(missing.status == 400)
        #expect(missing.errorCode == "missing_field")
    }
}
