import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// The demo's endpoints act only for the user of the device token they are called with, and exist only while the
/// demo is on.
@Suite struct DemoAPITests {
    @Test func endpointsAreScopedToTheCallersUser() throws {
        let server = try GatewayTestServer { $0.demo = true }
        defer { server.shutdown() }
        let alice = GatewayTestServer.token(user: "alice", device: "alice-phone")
        let bob = GatewayTestServer.token(user: "bob", device: "bob-phone")
        let bobClient = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(bob)")
        _ = try bobClient.next("welcome")

        // A second device of Alice: a token for her user, a new device id, the platform asked for.
        let device = try GatewayHTTP.request(port: server.port, "POST", "/demo/api/devices", ["platform": "desktop"], key: alice)
        #expect(device.status == 201)
        #expect(GatewayJSON.string(device.json, "userId") == "alice")
        let deviceId = try #require(GatewayJSON.string(device.json, "deviceId"))
        #expect(deviceId != "alice-phone")
        let desktopToken = try #require(GatewayJSON.string(device.json, "token"))
        let desktop = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(desktopToken)")
        let welcome = try desktop.next("welcome")
        #expect(GatewayJSON.string(welcome, "data", "userId") == "alice")
        #expect(GatewayJSON.string(welcome, "data", "clientType") == "desktop")

        // An approval in Alice's own demo session reaches Alice's devices, never Bob's.
        let posted = try GatewayHTTP.request(port: server.port, "POST", "/demo/api/approvals", ["summary": "deploy"], key: alice)
        #expect(posted.status == 201)
        #expect(GatewayJSON.string(posted.json, "session", "sessionId") == "demo-alice")
        let request = try desktop.next("approval_request")
        #expect(GatewayJSON.string(request, "data", "summary") == "deploy")
        #expect(GatewayJSON.string(request, "data", "sessionId") == "demo-alice")
        #expect((try? bobClient.next("approval_request", timeout: 0.3)) == nil)
        let bobsSession = try GatewayHTTP.request(port: server.port, "POST", "/demo/api/session", key: bob)
        #expect(GatewayJSON.string(bobsSession.json, "sessionId") == "demo-bob")

        // No token, a bad token, a bad platform, an unknown route.
        #expect(try GatewayHTTP.request(port: server.port, "POST", "/demo/api/approvals", [:], key: nil).errorCode == "unauthenticated")
        #expect(try GatewayHTTP.request(port: server.port, "POST", "/demo/api/devices", [:], key: "not-a-jwt").errorCode == "token_invalid")
        let badPlatform = try GatewayHTTP.request(port: server.port, "POST", "/demo/api/devices", ["platform": "toaster"], key: alice)
        #expect(badPlatform.status == 400 && badPlatform.errorCode == "invalid_field")
        #expect(try GatewayHTTP.request(port: server.port, "GET", "/demo/api/nothing", key: nil).status == 404)
        let stats = try GatewayHTTP.request(port: server.port, "GET", "/demo/api/stats", key: nil)
        #expect(GatewayJSON.int(stats.json, "connectedDevices") == 2 && GatewayJSON.int(stats.json, "pendingApprovals") == 1)
    }

    @Test func demoIsAbsentWhenOff() throws {
        let server = try GatewayTestServer()
        defer { server.shutdown() }
        let alice = GatewayTestServer.token(user: "alice", device: "alice-phone")
        #expect(try GatewayHTTP.request(port: server.port, "POST", "/demo/api/approvals", [:], key: alice).status == 404)
        #expect(try GatewayHTTP.request(port: server.port, "GET", "/demo", key: nil).status == 404)
        #expect(try GatewayHTTP.request(port: server.port, "GET", "/v1/client.js", key: nil).status == 200)
    }
}
