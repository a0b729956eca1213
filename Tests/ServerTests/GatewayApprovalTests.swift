import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Sessions, handoff and approvals: the backend over the server API, two devices of one user over WebSockets.
@Suite struct GatewayApprovalTests {
    /// One user ("ann") with a phone and a desktop connected, and an active session "s1".
    struct Setup {
        let server: GatewayTestServer
        let phone: GatewayTestClient
        let desktop: GatewayTestClient

        init(server: GatewayTestServer? = nil) throws {
            self.server = try server ?? GatewayTestServer()
            phone = try self.server.connect(user: "ann", device: "ann-phone", clientType: "ios")
            desktop = try self.server.connect(user: "ann", device: "ann-desk", clientType: "desktop")
            let session = try self.server.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1", "title": "Build"])
            #expect(session.status == 201)
            for device in [phone, desktop] { _ = try device.next("session_created") }
        }

        /// Posts an approval request; returns its id.
        func request(timeoutSeconds: Double, headers: [(String, String)] = []) throws -> String {
            let created = try server.api("POST", "/v1/sessions/s1/approvals",
                                         ["toolName": "shell", "summary": "rm -rf build", "details": ["cwd": "/src"], "timeoutSeconds": timeoutSeconds],
                                         headers: headers)
            #expect(created.status == 201)
            #expect(GatewayJSON.string(created.json, "state") == "pending")
            return try #require(GatewayJSON.string(created.json, "requestId"))
        }

        /// A long-poll started now on its own thread.
        func longPoll(_ id: String, wait: Int) -> BackgroundCall<GatewayHTTP.Response?> {
            let port = server.port
            return BackgroundCall { try? GatewayHTTP.request(port: port, "GET", "/v1/approvals/\(id)?wait=\(wait)") }
        }
    }

    static func isEvent(_ type: String, for id: String) -> ([String: Any]) -> Bool {
        { $0["type"] as? String == type && GatewayJSON.string($0, "data", "requestId") == id }
    }

    @Test func attachingFromAnotherDeviceHandsTheSessionOver() throws {
        let s = try Setup()
        #expect(try s.phone.command("session_attach", ["sessionId": "s1"])["ok"] as? Bool == true)
        let attached = try s.desktop.command("session_attach", ["sessionId": "s1"])
        #expect(GatewayJSON.string(attached, "result", "activeClient", "deviceId") == "ann-desk")
        let handoff = try s.phone.next("session_handoff")
        #expect(GatewayJSON.string(handoff, "data", "sessionId") == "s1")
        #expect(GatewayJSON.string(handoff, "data", "handedOffTo", "deviceId") == "ann-desk")
        #expect(GatewayJSON.string(handoff, "data", "handedOffTo", "clientType") == "desktop")
        #expect(GatewayJSON.string(handoff, "data", "previous", "deviceId") == "ann-phone")
        let session = try s.server.api("GET", "/v1/sessions/s1")
        #expect(session.status == 200)
        #expect(GatewayJSON.string(session.json, "activeClient", "deviceId") == "ann-desk")
        #expect(GatewayJSON.string(session.json, "activeClient", "clientType") == "desktop")
    }

    @Test func theFirstDeviceToAnswerWinsAndALongPollLearnsAtOnce() throws {
        let s = try Setup()
        let id = try s.request(timeoutSeconds: 30)
        for device in [s.phone, s.desktop] {
            let request = try device.next(where: Self.isEvent("approval_request", for: id))
            #expect(GatewayJSON.string(request, "data", "toolName") == "shell")
            #expect(GatewayJSON.string(request, "data", "details", "cwd") == "/src")
            let created = GatewayJSON.int(request, "data", "createdAt") ?? 0
            #expect(GatewayJSON.int(request, "data", "expiresAt") == created + 30_000)
        }
        let poll = s.longPoll(id, wait: 8)
        #expect(poll.wait(seconds: 0.3) == nil) // still waiting: nothing decided yet

        let answeredAt = Date()
        let approved = try s.phone.command("approve", ["requestId": id, "reason": "fine"])
        #expect(GatewayJSON.string(approved, "result", "state") == "approved")
        for device in [s.phone, s.desktop] {
            let resolved = try device.next(where: Self.isEvent("approval_resolved", for: id))
            #expect(GatewayJSON.string(resolved, "data", "state") == "approved")
            #expect(GatewayJSON.string(resolved, "data", "decidedBy", "deviceId") == "ann-phone")
        }
        let late = try s.desktop.command("deny", ["requestId": id])
        #expect(late["ok"] as? Bool == false)
        #expect(GatewayJSON.string(late, "error", "code") == "approval_already_resolved")

        let polled = try #require(poll.wait(seconds: 4) ?? nil)
        #expect(Date().timeIntervalSince(answeredAt) < 4)   // well before the 8 s wait: the answer ended the poll
        #expect(polled.status == 200)
        #expect(GatewayJSON.string(polled.json, "state") == "approved")
        let read = try s.server.api("GET", "/v1/approvals/\(id)")
        #expect(GatewayJSON.string(read.json, "state") == "approved")
        #expect(GatewayJSON.string(read.json, "decidedBy", "clientType") == "ios")
    }

    @Test func anUnansweredRequestTimesOutEverywhere() throws {
        let s = try Setup()
        let start = Date()
        let id = try s.request(timeoutSeconds: 1)
        let poll = s.longPoll(id, wait: 8)
        for device in [s.phone, s.desktop] {
            let timeout = try device.next(timeout: 3, where: Self.isEvent("approval_timeout", for: id))
            #expect(GatewayJSON.string(timeout, "data", "state") == "timed_out")
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.9 && elapsed < 4.0)   // the 1 s timeout, not the 60 s default; loose for loaded machines
        let polled = try #require(poll.wait(seconds: 4) ?? nil)
        #expect(GatewayJSON.string(polled.json, "state") == "timed_out")
        let late = try s.phone.command("approve", ["requestId": id])
        #expect(GatewayJSON.string(late, "error", "code") == "approval_expired")
        #expect(GatewayJSON.string(try s.server.api("GET", "/v1/approvals/\(id)").json, "state") == "timed_out")
    }

    @Test func timeoutBoundsAndIdempotencyKeys() throws {
        let s = try Setup()
        for seconds in [0.05, 100_000] {
            let refused = try s.server.api("POST", "/v1/sessions/s1/approvals", ["toolName": "t", "summary": "s", "timeoutSeconds": seconds])
            #expect(refused.status == 400)
            #expect(refused.errorCode == "timeout_out_of_range")
        }
        let first = try s.request(timeoutSeconds: 30, headers: [("Idempotency-Key", "run-7-step-3")])
        let retry = try s.request(timeoutSeconds: 30, headers: [("Idempotency-Key", "run-7-step-3")])
        #expect(first == retry)
        let other = try s.request(timeoutSeconds: 30, headers: [("Idempotency-Key", "run-7-step-4")])
        #expect(other != first)
        let requests = try s.phone.collect("approval_request", for: 0.3)
        #expect(requests.compactMap { GatewayJSON.string($0, "data", "requestId") } == [first, other])
        let pending = try s.server.api("GET", "/v1/users/ann/approvals")
        #expect(GatewayJSON.int(pending.json, "badge") == 2)
    }

    @Test func pendingApprovalsSurviveARestart() throws {
        let a = try Setup()
        let start = Date()
        let short = try a.request(timeoutSeconds: 2)
        let long = try a.request(timeoutSeconds: 60)
        a.server.shutdown()

        let b = try GatewayTestServer(directory: a.server.directory)
        let phone = try b.connect(user: "ann", device: "ann-phone")
        let timeout = try phone.next(timeout: 4, where: Self.isEvent("approval_timeout", for: short))
        #expect(Date().timeIntervalSince(start) >= 1.9)
        #expect(GatewayJSON.string(timeout, "data", "state") == "timed_out")
        #expect(GatewayJSON.string(try b.api("GET", "/v1/approvals/\(short)").json, "state") == "timed_out")
        #expect(GatewayJSON.string(try b.api("GET", "/v1/approvals/\(long)").json, "state") == "pending")
        let approved = try phone.command("approve", ["requestId": long])
        #expect(GatewayJSON.string(approved, "result", "state") == "approved")
        #expect(GatewayJSON.string(try b.api("GET", "/v1/approvals/\(long)").json, "state") == "approved")
        #expect(try phone.collect("approval_timeout", for: 0.1).isEmpty) // the long one did not time out
    }
}
