import Auth
import Foundation
import GatewayProtocol
@testable import GatewayRuntime
@testable import Server
import Testing

/// Account and device lifecycle (docs/PROTOCOL.md, "Account and device lifecycle") over real sockets and a real
/// SQLite file: deleting a user closes its sockets with 4010 and survives a restart; revoking a device closes its
/// sockets with 4011 and refuses its tokens while the user's other devices go on.
@Suite struct AccountLifecycleTests {
    /// A client token with `iat` (the revocation rule compares it): `issuedAt` seconds from now.
    static func token(user: String, device: String, issuedAt offset: Int64 = -10) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims: [String: Auth.JSONValue] = [
            "sub": .string(user), "device_id": .string(device), "client_type": .string("ios"),
            "iat": .int(now + offset), "exp": .int(now + 3600)
        ]
        return try! JWTSigner.sign(claims: claims, key: .hmac(secret: Array(GatewayTestServer.secret.utf8)))
    }

    /// A device connected with `token`, its `welcome` read.
    static func connect(_ server: GatewayTestServer, _ token: String, query: String = "") throws -> GatewayTestClient {
        let client = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)" + query)
        _ = try client.next("welcome")
        return client
    }

    /// The close code a connection with `token` gets instead of a `welcome`.
    static func refusedClose(_ server: GatewayTestServer, _ token: String) throws -> UInt16? {
        try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)").closeCode()
    }

    @Test func deletingAUserClosesItsSocketsRemovesItsDataAndSurvivesARestart() throws {
        let a = try GatewayTestServer()
        try GatewayMessagingTests.makeUsers(a)  // alice, bob, carol; alice ↔ bob contacts
        let phoneToken = Self.token(user: "alice", device: "alice-phone")
        let phone = try Self.connect(a, phoneToken)
        let desk = try Self.connect(a, Self.token(user: "alice", device: "alice-desk"))
        let bob = try Self.connect(a, Self.token(user: "bob", device: "bob-phone"))
        #expect(try phone.command("send_message", ["to": "bob", "text": "keep this"])["ok"] as? Bool == true)
        let delivered = try bob.next("message")
        let offset = try #require(GatewayJSON.int(delivered, "offset"))
        #expect(try a.api("POST", "/v1/sessions", ["userId": "alice", "sessionId": "run1"]).status == 201)
        let approval = try a.api(
            "POST", "/v1/sessions/run1/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": 60])
        let approvalId = try #require(GatewayJSON.string(approval.json, "requestId"))

        let deleted = try a.api("DELETE", "/v1/users/me", key: phoneToken)
        #expect(deleted.status == 200, "\(deleted.json)")
        #expect(try phone.closeCode() == GatewayCloseCode.accountDeleted)
        #expect(try desk.closeCode() == GatewayCloseCode.accountDeleted)

        #expect(try a.api("GET", "/v1/users/alice").errorCode == "user_not_found")
        #expect(try a.api("GET", "/v1/sessions/run1").status == 404)
        #expect(try a.api("GET", "/v1/approvals/\(approvalId)").status == 404)
        #expect((try a.api("GET", "/v1/users/bob/contacts").json["contacts"] as? [Any])?.isEmpty == true)
        // Bob's history with her is gone (the messages were hers too), his own log keeps the copy delivered to him.
        #expect(GatewayJSON.array(try bob.command("history", ["with": "alice"]), "result", "messages")?.isEmpty == true)
        let resumed = try Self.connect(a, Self.token(user: "bob", device: "bob-tablet"), query: "&offset=\(offset - 1)")
        #expect(GatewayJSON.string(try resumed.next("message"), "data", "text") == "keep this")
        // Her old tokens are refused: on the socket and over HTTP.
        #expect(try Self.refusedClose(a, phoneToken) == GatewayCloseCode.accountDeleted)
        #expect(
            try a.api("PUT", "/v1/users/me/display-name", ["displayName": "Back"], key: phoneToken).errorCode
                == "token_revoked")
        #expect(try a.api("DELETE", "/v1/users/alice").errorCode == "user_not_found")
        a.shutdown()

        // The same SQLite file, opened again: she is still gone and her token still refused.
        let b = try GatewayTestServer(directory: a.directory)
        #expect(try b.api("GET", "/v1/users/alice").status == 404)
        #expect(try Self.refusedClose(b, phoneToken) == GatewayCloseCode.accountDeleted)
        #expect(try b.api("DELETE", "/v1/users/me", key: phoneToken).status == 401)
        #expect(try b.api("GET", "/v1/users/bob").status == 200)
        // A token issued after the deletion is a new account of that id (an app backend re-created the user).
        _ = try Self.connect(b, Self.token(user: "alice", device: "alice-phone", issuedAt: 2))
        #expect(try b.api("GET", "/v1/users/alice").status == 200)
        #expect((try b.api("GET", "/v1/users/alice/contacts").json["contacts"] as? [Any])?.isEmpty == true)
    }

    @Test func aRevokedDevicesTokenIsRefusedWhileTheOtherDeviceGoesOn() throws {
        let a = try GatewayTestServer()
        try GatewayMessagingTests.makeUsers(a)
        let phoneToken = Self.token(user: "alice", device: "alice-phone")
        let deskToken = Self.token(user: "alice", device: "alice-desk")
        let phone = try Self.connect(a, phoneToken)
        let desk = try Self.connect(a, deskToken)
        let bob = try Self.connect(a, Self.token(user: "bob", device: "bob-phone"))

        // A device names only its own user's devices: bob's id is not one of them.
        let foreign = try a.api("DELETE", "/v1/users/me/devices/bob-phone", key: deskToken)
        #expect(foreign.status == 404 && foreign.errorCode == "not_found")
        #expect(try a.api("DELETE", "/v1/users/alice/devices/nope").errorCode == "not_found")
        #expect(try bob.command("send_message", ["to": "alice", "text": "still here"])["ok"] as? Bool == true)

        #expect(try a.api("DELETE", "/v1/users/me/devices/alice-phone", key: deskToken).status == 200)
        #expect(try phone.closeCode() == GatewayCloseCode.deviceRevoked)
        #expect(try Self.refusedClose(a, phoneToken) == GatewayCloseCode.deviceRevoked)
        #expect(try a.api("DELETE", "/v1/users/me", key: phoneToken).errorCode == "token_revoked")
        // The desk and the user are untouched.
        _ = try desk.next("message")
        #expect(try desk.command("send_message", ["to": "bob", "text": "from the desk"])["ok"] as? Bool == true)
        // Bob's own copy of his earlier message comes first (the sender's log has it too).
        _ = try bob.next {
            GatewayJSON.string($0, "type") == "message" && GatewayJSON.string($0, "data", "text") == "from the desk"
        }
        #expect(try a.api("GET", "/v1/users/alice").status == 200)
        a.shutdown()

        let b = try GatewayTestServer(directory: a.directory)
        #expect(try Self.refusedClose(b, phoneToken) == GatewayCloseCode.deviceRevoked)
        _ = try Self.connect(b, deskToken)
        // Signing in again (a token issued after the revocation) brings the device back.
        _ = try Self.connect(b, Self.token(user: "alice", device: "alice-phone", issuedAt: 2))
    }

    @Test func theOwnRoutesAnswerBrowsersFromAListedOrigin() throws {
        let server = try GatewayTestServer { $0.corsAllowedOrigins = .list(["https://app.example"]) }
        for path in ["/v1/users/me", "/v1/users/me/devices/phone"] {
            let preflight = try server.api(
                "OPTIONS", path, key: nil,
                headers: [
                    ("Origin", "https://app.example"), ("Access-Control-Request-Method", "DELETE"),
                    ("Access-Control-Request-Headers", "authorization")
                ])
            #expect((200..<300).contains(preflight.status), "\(path): \(preflight.status)")
        }
        let token = Self.token(user: "alice", device: "alice-phone")
        _ = try Self.connect(server, token)
        let raw = try RawClient(port: server.port, timeoutSeconds: 10)
        raw.send(
            Array(
                "DELETE /v1/users/me/devices/alice-phone HTTP/1.1\r\nHost: x\r\nOrigin: https://app.example\r\nAuthorization: Bearer \(token)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .utf8))
        let response = try raw.readResponse()
        #expect(response.head.status == 200)
        #expect(response.head.headers["Access-Control-Allow-Origin"] == "https://app.example")
    }
}
