import Gateway
import GatewayProtocol
import Synchronization
import Testing

@Suite struct ApprovalTests {
    @Test func theFirstAnswerWinsAndEveryDeviceLearnsIt() throws {
        let f = try HubFixture()
        let phone = f.connect("u1", "phone", "ios")
        let desktop = f.connect("u1", "desk", "desktop")
        let approval = f.approval(session: f.session("u1"))
        #expect(approval.state == "pending")
        #expect(approval.expiresAt - approval.createdAt == 60_000)
        for device in [phone, desktop] {
            let request = device.events("approval_request")
            #expect(request.count == 1)
            #expect(data(request[0])["requestId"] as? String == approval.requestId)
            #expect(data(request[0])["expiresAt"] as? Int64 == approval.expiresAt)
        }
        f.command(desktop, #"{"id":"a1","type":"approve","requestId":"\#(approval.requestId)"}"#)
        f.command(phone, #"{"id":"a2","type":"deny","requestId":"\#(approval.requestId)"}"#)
        #expect(desktop.reply("a1")?["ok"] as? Bool == true)
        #expect(phone.errorCode("a2") == "approval_already_resolved")
        for device in [phone, desktop] {
            let resolved = device.events("approval_resolved")
            #expect(resolved.count == 1)
            #expect(data(resolved[0])["state"] as? String == "approved")
            #expect((data(resolved[0])["decidedBy"] as? [String: Any])?["deviceId"] as? String == "desk")
        }
        #expect(f.hub.approval(approval.requestId)?.state == "approved")
        // The approval's timeout was cancelled: no timer is left (no device has a push token, so no
        // acknowledgement deadline waits either), and a minute later nothing times out.
        #expect(f.scheduler.pendingTimers == 0)
        f.scheduler.advance(by: 61_000)
        #expect(phone.events("approval_timeout").isEmpty && desktop.events("approval_timeout").isEmpty)
        #expect(f.scheduler.pendingTimers == 0)
        #expect(f.hub.metrics.pendingApprovals.load(ordering: .relaxed) == 0)
        #expect(f.hub.metrics.approvalsResolved.load(ordering: .relaxed) == 1)
        #expect(f.hub.metrics.connectedDevices.load(ordering: .relaxed) == 2)
        #expect(f.hub.metrics.render().contains("switchboard_gateway_approvals_resolved_total 1"))
    }

    @Test func anUnansweredRequestTimesOutAtExactlySixtySeconds() throws {
        let f = try HubFixture()
        let phone = f.connect("u1", "phone")
        let desktop = f.connect("u1", "desk", "desktop")
        let approval = f.approval(session: f.session("u1"))
        var backendSaw: ApprovalData?
        f.hub.waitForApproval(approval.requestId, waitMs: 120_000) { backendSaw = try? $0.get() }
        f.scheduler.advance(by: 59_999)
        #expect(phone.events("approval_timeout").isEmpty)
        #expect(backendSaw == nil)
        f.scheduler.advance(by: 1)
        for device in [phone, desktop] { #expect(device.events("approval_timeout").count == 1) }
        #expect(backendSaw?.state == "timed_out")
        f.command(phone, #"{"id":"late","type":"approve","requestId":"\#(approval.requestId)"}"#)
        #expect(phone.errorCode("late") == "approval_expired")
    }

    @Test func timeoutsOutsideTheBoundsAreRejectedAndCustomOnesHonoured() throws {
        let f = try HubFixture()
        let session = f.session("u1")
        var error: GatewayError?
        f.hub.requestApproval(
            sessionId: session, toolName: "t", summary: "s", details: nil, timeoutMs: 700_000, idempotencyKey: nil
        ) {
            if case .failure(let e) = $0 { error = e }
        }
        #expect(error?.code == .timeoutOutOfRange)
        let short = f.approval(session: session, timeoutMs: 1_000)
        f.scheduler.advance(by: 1_000)
        #expect(f.hub.approval(short.requestId)?.state == "timed_out")
    }

    @Test func pendingApprovalsSurviveARestartAndExpiredOnesTimeOutAtOnce() throws {
        let store = InMemoryGatewayStore()
        let first = try HubFixture(store: store)
        let session = first.session("u1")
        let soon = first.approval(session: session, timeoutMs: 5_000)
        let later = first.approval(session: session, timeoutMs: 120_000)
        first.scheduler.advance(by: 1_000)

        // A new process: same store, clock moved past the first deadline.
        let second = try HubFixture(store: store)
        #expect(second.hub.approval(soon.requestId)?.state == "pending")
        #expect(second.scheduler.pendingTimers == 2)  // both deadlines re-armed from the store
        let phone = second.connect("u1", "phone")
        second.scheduler.advance(by: 10_000)  // now far beyond `soon`'s deadline
        #expect(second.hub.approval(soon.requestId)?.state == "timed_out")
        #expect(second.hub.approval(later.requestId)?.state == "pending")
        #expect(phone.events("approval_timeout").count == 1)
        second.scheduler.advance(by: 120_000)
        #expect(second.hub.approval(later.requestId)?.state == "timed_out")
        // Ids keep increasing after the restart.
        #expect(second.approval(session: session).requestId == "apr_3")
    }

    @Test func anIdempotentRetryReturnsTheFirstRequest() throws {
        let f = try HubFixture()
        let session = f.session("u1")
        let phone = f.connect("u1", "phone")
        let a = f.approval(session: session, key: "job-42")
        let b = f.approval(session: session, key: "job-42")
        #expect(a == b)
        #expect(phone.events("approval_request").count == 1)
        #expect(f.hub.pendingApprovals(of: "u1").count == 1)
        f.command(phone, #"{"id":"p","type":"approvals_pending"}"#)
        #expect((phone.reply("p")?["result"] as? [String: Any])?["badge"] as? Int64 == 1)
    }
}
