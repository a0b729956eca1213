import Foundation
import Gateway
@testable import GatewayRuntime
@testable import Server
import Testing

/// Backends can manage devices' push tokens and users' notification settings through the server API.
@Suite struct PushAPITests {
    @Test func tokensAndSettingsCanBeSetThroughTheServerAPI() throws {
        let server = try GatewayTestServer()
        let phone = try server.connect(user: "ann", device: "ann-phone")
        phone.disconnect()
        let created = try server.api("POST", "/v1/devices/ann-phone/push-tokens", ["kind": "fcm", "token": "fcm-token-1"])
        #expect(created.status == 200)
        #expect(try server.api("POST", "/v1/devices/nobody/push-tokens", ["kind": "fcm", "token": "x"]).status == 404)
        #expect(try server.api("POST", "/v1/devices/ann-phone/push-tokens", ["kind": "pager", "token": "x"]).status == 400)
        #expect(try server.api("POST", "/v1/devices/ann-phone/push-tokens", ["token": "x"]).status == 400)
        let settings = try server.api("PUT", "/v1/users/ann/notification-settings", ["showDetails": true])
        #expect(settings.status == 200)
        #expect(GatewayJSON.bool(settings.json, "showDetails") == true)
        #expect(GatewayJSON.bool(settings.json, "liveActivities") == true)

        #expect(try server.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1"]).status == 201)
        #expect(try server.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls"]).status == 201)
        let job = try #require(try server.runtime.store.duePushJobs(now: .max, limit: 10).first)
        #expect(job.target == PushTarget(provider: "fcm", token: "fcm-token-1", kind: "alert"))
        #expect(job.notice.showDetails == true)

        #expect(try server.api("DELETE", "/v1/devices/ann-phone/push-tokens", ["kind": "fcm"]).status == 200)
        #expect(try server.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls"]).status == 201)
        #expect(try server.runtime.store.duePushJobs(now: .max, limit: 10).count == 1)   // no token, no new job
    }
}
