import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Decided approvals and ended sessions are read back from the SQLite file after a restart (they are not loaded at
/// start): the API and the devices keep getting the same answers.
@Suite struct GatewayRestartRecordsTests {
    @Test func decidedApprovalsAndEndedSessionsStayAuthoritativeAfterARestart() throws {
        let a = try GatewayApprovalTests.Setup()
        let id = try a.request(timeoutSeconds: 30)
        #expect(GatewayJSON.string(try a.phone.command("deny", ["requestId": id]), "result", "state") == "denied")
        #expect(try a.server.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s2"]).status == 201)
        #expect(try a.server.api("POST", "/v1/sessions/s2/end").status == 200)
        a.server.shutdown()

        let b = try GatewayTestServer(directory: a.server.directory)
        let got = try b.api("GET", "/v1/approvals/\(id)")
        #expect(got.status == 200)
        #expect(GatewayJSON.string(got.json, "state") == "denied")
        #expect(GatewayJSON.string(got.json, "decidedBy", "deviceId") == "ann-phone")
        let polled = try b.api("GET", "/v1/approvals/\(id)?wait=5")      // decided: answers at once
        #expect(GatewayJSON.string(polled.json, "state") == "denied")

        let desktop = try b.connect(user: "ann", device: "ann-desk", clientType: "desktop")
        let late = try desktop.command("approve", ["requestId": id])
        #expect(GatewayJSON.string(late, "error", "code") == "approval_already_resolved")
        // Another user's device still cannot see it.
        let stranger = try b.connect(user: "eve", device: "eve-phone")
        #expect(GatewayJSON.string(try stranger.command("approve", ["requestId": id]), "error", "code") == "approval_not_found")

        let again = try b.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s2"])
        #expect(GatewayJSON.string(again.json, "state") == "ended")
        #expect(GatewayJSON.string(try b.api("GET", "/v1/sessions/s2").json, "state") == "ended")
        let event = try b.api("POST", "/v1/sessions/s2/events", ["kind": "progress"])
        #expect(event.errorCode == "session_ended")
        let approval = try b.api("POST", "/v1/sessions/s2/approvals", ["toolName": "shell", "summary": "ls"])
        #expect(approval.errorCode == "session_ended")
        #expect(GatewayJSON.string(try desktop.command("session_attach", ["sessionId": "s2"]), "error", "code") == "session_ended")
        #expect(GatewayJSON.string(try desktop.command("session_get", ["sessionId": "s2"]), "result", "state") == "ended")
        #expect(try b.api("GET", "/v1/approvals/apr_999").status == 404)
        #expect(try b.api("GET", "/v1/sessions/nope").status == 404)
    }
}
