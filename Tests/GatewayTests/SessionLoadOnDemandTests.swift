@testable import Gateway
import GatewayProtocol
import GatewayTestSupport
import Testing

/// Sessions are read with their user (`UserEntry.openSessions`) and forgotten with it; pending approvals are held
/// from start, so their deadlines fire for users no node has loaded (docs/ARCHITECTURE.md, "Memory and load on
/// demand").
@Suite struct SessionLoadOnDemandTests {
    let store = InMemoryGatewayStore()

    func hub(_ clock: ManualScheduler = ManualScheduler(), capacity: Int = 100_000) throws -> GatewayHub {
        var settings = GatewaySettings()
        settings.approvalPushDelayMs = 0
        settings.userCacheCapacity = capacity
        let hub = GatewayHub(store: store, scheduler: clock, clock: clock, settings: settings)
        try hub.start()
        return hub
    }

    /// A hub that created session `s1` for ann, with her phone its active device.
    func annsSessionOnThePhone() throws -> GatewayHub {
        let first = try hub()
        var created: String?
        first.createSession(id: "s1", userId: "ann", title: "run") { created = try? $0.get().sessionId }
        #expect(created == "s1")
        let phone = FakeClient("ann", "phone", "ios")
        first.connect(phone, resumeAfter: nil)
        first.handle(Array(#"{"id":"a","type":"session_attach","sessionId":"s1"}"#.utf8), from: phone)
        #expect(phone.reply("a")?["ok"] as? Bool == true)
        return first
    }

    @Test func aSessionOfAUserNotLoadedIsHandedOffAfterReadingTheUser() throws {
        _ = try annsSessionOnThePhone()
        let second = try hub()                       // a restart: nothing of ann is held
        #expect(second.loadedUserCount == 0 && second.session("s1") == nil)

        let laptop = FakeClient("ann", "laptop", "desktop")
        second.connect(laptop, resumeAfter: nil)
        // Her open session came with her, with the device the store has as active.
        #expect(second.session("s1")?.activeClient?.deviceId == "phone")
        second.handle(Array(#"{"id":"b","type":"session_attach","sessionId":"s1"}"#.utf8), from: laptop)
        #expect(laptop.reply("b")?["ok"] as? Bool == true, "\(laptop.frames)")
        let handoff = data(try #require(laptop.events("session_handoff").first))
        #expect((handoff["previous"] as? [String: Any])?["deviceId"] as? String == "phone")
        #expect((handoff["handedOffTo"] as? [String: Any])?["deviceId"] as? String == "laptop")
        #expect(try store.session(id: "s1")?.activeClient?.deviceId == "laptop")
    }

    @Test func backendCallsOnASessionReadItsUserFirst() throws {
        _ = try annsSessionOnThePhone()
        let second = try hub()
        var offset: Int64?
        second.postSessionEvent(sessionId: "s1", kind: "progress", payload: .string("half")) { offset = try? $0.get() }
        #expect(offset != nil)
        #expect(second.isLoaded("ann") && second.session("s1")?.state == "active")
        #expect(try store.events(userId: "ann", after: 0, limit: 10).last?.type == "session_event")

        let third = try hub()
        var ended: SessionData?
        third.endSession(sessionId: "s1") { ended = try? $0.get() }
        #expect(ended?.state == "ended" && third.isLoaded("ann"))
        // Ended stays ended on a fresh hub, read by id (an ended session is not part of the user's entry).
        let fourth = try hub()
        #expect(try store.userEntry(id: "ann").openSessions.isEmpty)
        var again: SessionData?
        fourth.createSession(id: "s1", userId: "ann", title: nil) { again = try? $0.get() }
        #expect(again?.state == "ended")
        var refused: GatewayError?
        fourth.postSessionEvent(sessionId: "s1", kind: "progress", payload: nil) { if case .failure(let e) = $0 { refused = e } }
        #expect(refused?.code == .sessionEnded)
    }

    @Test func aSessionCreatedElsewhereAfterTheUserWasReadIsFoundInTheStore() throws {
        let b = try hub()
        let laptop = FakeClient("ann", "laptop", "desktop")
        b.connect(laptop, resumeAfter: nil)          // B holds ann, with no session yet
        _ = try annsSessionOnThePhone()              // another node creates s1 and the phone takes it
        #expect(b.session("s1") == nil)
        b.handle(Array(#"{"id":"b","type":"session_attach","sessionId":"s1"}"#.utf8), from: laptop)
        #expect(laptop.reply("b")?["ok"] as? Bool == true, "\(laptop.frames)")
        #expect(laptop.events("session_handoff").count == 1)
        #expect(try store.session(id: "s1")?.activeClient?.deviceId == "laptop")
        // Another user's session is not found, and not read into memory with its user.
        let ben = FakeClient("ben", "phone", "ios")
        let c = try hub()
        c.connect(ben, resumeAfter: nil)
        c.handle(Array(#"{"id":"x","type":"session_attach","sessionId":"s1"}"#.utf8), from: ben)
        #expect(ben.errorCode("x") == "session_not_found")
        #expect(!c.isLoaded("ann") && c.session("s1") == nil)
    }

    @Test func aForgottenUsersSessionsGoWithItAndComeBackWithIt() throws {
        let clock = ManualScheduler()
        let h = try hub(clock, capacity: 4)
        for i in 0..<12 {
            h.createSession(id: "s\(i)", userId: "u\(i)", title: nil) { _ in }
            clock.advance(by: 0)                     // the eviction due after each round
        }
        #expect(h.loadedUserCount <= 4)
        #expect(!h.isLoaded("u0") && h.session("s0") == nil)
        #expect(h.isLoaded("u11") && h.session("s11") != nil)
        var offset: Int64?
        h.postSessionEvent(sessionId: "s0", kind: "status", payload: nil) { offset = try? $0.get() }
        #expect(offset == 2 && h.isLoaded("u0") && h.session("s0") != nil)
    }

    @Test func anApprovalOfAUserNoNodeHasLoadedTimesOutOnceAndIsNotified() throws {
        let clockA = ManualScheduler()
        let a = try hub(clockA)
        a.createSession(id: "s1", userId: "ann", title: nil) { _ in }
        var created: ApprovalData?
        a.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: 2_000, idempotencyKey: nil) {
            created = try? $0.get()
        }
        let id = try #require(created?.requestId)

        // B starts after the request: it holds the pending approval (with its deadline), not ann.
        let clockB = ManualScheduler()
        let b = try hub(clockB)
        let finished = Finished()
        b.approvalObserver = finished
        #expect(!b.isLoaded("ann") && b.approval(id)?.state == "pending")
        var waited: ApprovalData?
        b.waitForApproval(id, waitMs: 60_000) { waited = (try? $0.get()) ?? nil }
        #expect(waited == nil)

        clockB.advance(by: 1_999)
        #expect(finished.ids.isEmpty)
        clockB.advance(by: 1)                        // at the deadline: ann is read, the timeout appended and told
        #expect(try store.approval(id: id)?.state == .timedOut)
        #expect(finished.ids == [id] && waited?.state == "timed_out")
        #expect(b.isLoaded("ann"))

        // A's own timer fires too: the store has decided, nothing more is appended and A's observer is not told.
        let alsoFinished = Finished()
        a.approvalObserver = alsoFinished
        clockA.advance(by: 3_000)
        let log = try store.events(userId: "ann", after: 0, limit: 10).map(\.type)
        #expect(log == ["session_created", "approval_request", "approval_timeout"])
        #expect(alsoFinished.ids.isEmpty && finished.ids == [id])
        #expect(a.approval(id)?.state == "timed_out")
    }
}

/// Records the approvals a hub reports finished.
final class Finished: ApprovalObserver, @unchecked Sendable {
    // @unchecked: used from one test thread.
    var ids: [String] = []
    func approvalFinished(_ approval: ApprovalRecord) { ids.append(approval.id) }
}
