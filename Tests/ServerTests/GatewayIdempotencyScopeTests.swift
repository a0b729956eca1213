import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Idempotency keys are scoped by what they create and refuse a different request (real server, real SQLite).
@Suite struct GatewayIdempotencyScopeTests {
    static func approval(_ server: GatewayTestServer, session: String, key: String, summary: String = "rm -rf build") throws -> GatewayHTTP.Response {
        try server.api("POST", "/v1/sessions/\(session)/approvals", ["toolName": "shell", "summary": summary, "timeoutSeconds": 30],
                       headers: [("Idempotency-Key", key)])
    }

    @Test func theSameApprovalKeyOnAnotherUsersSessionCreatesThatUsersOwnRequest() throws {
        let server = try GatewayTestServer()
        for (user, session) in [("ann", "sa"), ("bob", "sb")] {
            #expect(try server.api("POST", "/v1/sessions", ["userId": user, "sessionId": session]).status == 201)
        }
        let ann = try Self.approval(server, session: "sa", key: "job-1")
        let bob = try Self.approval(server, session: "sb", key: "job-1")
        #expect(ann.status == 201)
        #expect(bob.status == 201)
        #expect(GatewayJSON.string(bob.json, "sessionId") == "sb")
        #expect(GatewayJSON.string(bob.json, "requestId") != GatewayJSON.string(ann.json, "requestId"))
        let pending = try server.api("GET", "/v1/users/bob/approvals")
        #expect(GatewayJSON.int(pending.json, "badge") == 1)
        // A true retry still gets the first answer.
        let retry = try Self.approval(server, session: "sa", key: "job-1")
        #expect(retry.status == 201)
        #expect(GatewayJSON.string(retry.json, "requestId") == GatewayJSON.string(ann.json, "requestId"))
    }

    @Test func aReusedKeyWithADifferentRequestIsRefusedAlsoAfterARestart() throws {
        let directory = try TemporaryDirectory()
        var server: GatewayTestServer? = try GatewayTestServer(directory: directory)
        #expect(try server!.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "sa"]).status == 201)
        #expect(try Self.approval(server!, session: "sa", key: "job-1").status == 201)
        let changed = try Self.approval(server!, session: "sa", key: "job-1", summary: "rm -rf /")
        #expect(changed.status == 409)
        #expect(changed.errorCode == "idempotency_key_reused")
        #expect(try server!.api("POST", "/v1/users", ["userId": "ann"]).status == 200)   // ann exists: the session made her
        let event = try server!.api("POST", "/v1/users/ann/events", ["name": "paid", "payload": ["id": 7]], headers: [("Idempotency-Key", "e-1")])
        #expect(event.status == 201)
        server!.shutdown()
        server = nil

        let restarted = try GatewayTestServer(directory: directory)
        #expect(try Self.approval(restarted, session: "sa", key: "job-1", summary: "rm -rf /").errorCode == "idempotency_key_reused")
        #expect(try Self.approval(restarted, session: "sa", key: "job-1").status == 201)
        let other = try restarted.api("POST", "/v1/users/ann/events", ["name": "paid", "payload": ["id": 8]], headers: [("Idempotency-Key", "e-1")])
        #expect(other.status == 409)
        #expect(other.errorCode == "idempotency_key_reused")
        let same = try restarted.api("POST", "/v1/users/ann/events", ["name": "paid", "payload": ["id": 7]], headers: [("Idempotency-Key", "e-1")])
        #expect(GatewayJSON.int(same.json, "offset") == GatewayJSON.int(event.json, "offset"))
    }
}
