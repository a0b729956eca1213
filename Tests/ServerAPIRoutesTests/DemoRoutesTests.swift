import GatewayProtocol
import HTTP1
import Testing
@testable import ServerAPIRoutes

/// The demo page's endpoints: routes, methods and bodies.
@Suite struct DemoRoutesTests {
    private func demo(_ method: String, _ path: String, body: String = "") -> Result<DemoRequest, APIRefusal> {
        DemoRoutes.request(request(method, path, body: body))
    }

    @Test func eachEndpointAndItsBody() throws {
        #expect(try demo("GET", "/demo/api/stats").get() == .stats)
        #expect(try demo("POST", "/demo/api/session").get() == .session)
        guard case .addDevice(let device) = try demo("POST", "/demo/api/devices").get(),
              case .addDevice(let web) = try demo("POST", "/demo/api/devices", body: #"{"platform":"web"}"#).get(),
              case .approval(let approval) = try demo("POST", "/demo/api/approvals", body: #"{"timeoutSeconds":1e300}"#).get() else {
            Issue.record("demo endpoints"); return
        }
        #expect(device.platform == nil && web.platform == "web")
        // The number is read as sent; ApprovalTimeout (the gateway's) refuses it against the node's bounds.
        #expect(approval.timeoutSeconds == 1e300 && approval.summary == nil)
        #expect(DemoRoutes.Endpoint.allCases.filter(\.needsDevice) == [.devices, .session, .approvals])
    }

    @Test func refusals() {
        guard case .failure(let missing) = demo("GET", "/demo/api/nothing"),
              case .failure(let method) = demo("GET", "/demo/api/approvals"),
              case .failure(let platform) = demo("POST", "/demo/api/devices", body: #"{"platform":"toaster"}"#),
              case .failure(let timeout) = demo("POST", "/demo/api/approvals", body: #"{"timeoutSeconds":"soon"}"#) else {
            Issue.record("a bad demo request was accepted"); return
        }
        #expect(missing.status == 404 && missing.message == "no demo route GET /demo/api/nothing")
        #expect(method.status == 405 && method.headers["Allow"] == "POST")
        #expect(platform.status == 400 && platform.code == "invalid_field" && platform.message.contains("ios, android, desktop or web"))
        #expect(timeout.code == "invalid_field" && timeout.message.contains("timeoutSeconds"))
    }
}
