import Gateway
import GatewayProtocol
import GatewayTestSupport
import Testing

/// Two hubs sharing one store, as two nodes share a database: each on its own manual clock, driven by the test.
@Suite struct TwoNodeSweepTests {
    let store = InMemoryGatewayStore()
    let clockA = ManualScheduler()
    let clockB = ManualScheduler()

    func hub(_ clock: ManualScheduler, sweepMs: Int64, approvalWebhooks: Bool = false) throws -> GatewayHub {
        var settings = GatewaySettings()
        settings.approvalSweepIntervalMs = sweepMs
        settings.approvalPushDelayMs = 0
        settings.backendWebhooks.approvals = approvalWebhooks
        let hub = GatewayHub(store: store, scheduler: clock, clock: clock, settings: settings)
        try hub.start()
        return hub
    }

    @Test func anApprovalWhoseNodeIsGoneTimesOutOnAnotherNodeExactlyOnce() throws {
        let a = try hub(clockA, sweepMs: 0)
        var session: String?
        a.createSession(id: "s1", userId: "ann", title: nil) { session = try? $0.get().sessionId }
        #expect(session == "s1")
        // Node B starts now: the approval created next is not in its snapshot, and it never hears of it directly.
        let b = try hub(clockB, sweepMs: 500)
        let phone = FakeClient("ann", "phone", "ios")
        b.connect(phone, resumeAfter: nil)
        var created: ApprovalData?
        a.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: 2_000, idempotencyKey: nil) {
            created = try? $0.get()
        }
        let id = try #require(created?.requestId)

        // Node A is gone (its clock never moves). B's sweep (every 500 ms) finds the request at its deadline and times
        // it out: within one sweep interval of the deadline.
        clockB.advance(by: 1_999)
        #expect(phone.events("approval_timeout").isEmpty)
        clockB.advance(by: 1)
        #expect(try store.approval(id: id)?.state == .timedOut)
        let timeouts = phone.events("approval_timeout")
        #expect(timeouts.count == 1)
        #expect(data(timeouts.first ?? [:])["requestId"] as? String == id)
        // B's offset counter was behind A's event: the store's answer moved it on, no offset was used twice.
        let log = try store.events(userId: "ann", after: 0, limit: 10)
        #expect(log.map(\.offset) == Array(1...Int64(log.count)))
        #expect(log.map(\.type) == ["session_created", "approval_request", "approval_timeout"])

        // A comes back and its own timer fires: the store has decided already, nothing more is appended.
        clockA.advance(by: 3_000)
        #expect(try store.events(userId: "ann", after: 0, limit: 10).count == 3)
        #expect(a.approval(id)?.state == "timed_out")
    }

    @Test func aTimeoutBothNodesDecideIsAnnouncedToTheBackendOnce() throws {
        let a = try hub(clockA, sweepMs: 0, approvalWebhooks: true)
        a.createSession(id: "s1", userId: "ann", title: nil) { _ in }
        let b = try hub(clockB, sweepMs: 500, approvalWebhooks: true)
        var created: ApprovalData?
        a.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: 2_000, idempotencyKey: nil) {
            created = try? $0.get()
        }
        let id = try #require(created?.requestId)
        // B's sweep times it out; then A's own deadline fires and loses to the stored decision.
        clockB.advance(by: 2_000)
        clockA.advance(by: 3_000)
        #expect(a.approval(id)?.state == "timed_out")
        // The webhook job is written with the decision that was stored, so the losing node writes none.
        let jobs = try store.duePushJobs(now: .max, limit: 100).filter { $0.target.provider == PushTarget.backendProvider }
        #expect(jobs.map(\.notice.type) == ["approval_timed_out"])
        _ = b
    }

    @Test func withoutTheSweepTheOtherNodesApprovalIsLeftPending() throws {
        let a = try hub(clockA, sweepMs: 0)
        a.createSession(id: "s1", userId: "ann", title: nil) { _ in }
        let b = try hub(clockB, sweepMs: 0)
        var created: ApprovalData?
        a.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: 2_000, idempotencyKey: nil) {
            created = try? $0.get()
        }
        clockB.advance(by: 5_000)
        #expect(try store.approval(id: try #require(created?.requestId))?.state == .pending)
        _ = b
    }
}
