import Dispatch
import Foundation
import Gateway
@testable import GatewayRuntime
@testable import Server
import Storage
import Synchronization
import Testing

/// A second node sharing the database: its decisions are written straight into the gateway's SQLite file (through a
/// second store on the same file, as another node's adapter would) while this node's hub still remembers the old
/// state. The hub must take the store's answer — never overwrite the other node's decision.
@Suite struct GatewaySecondNodeTests {
    /// The other node: its own store on the same file.
    final class OtherNode {
        let store: SQLiteGatewayStore

        init(_ server: GatewayTestServer) throws { store = try SQLiteGatewayStore(options: SQLiteStoreOptions(path: server.databasePath)) }
        deinit { store.close() }

        /// Commits `writes` and waits: the other node's decision is durable when this returns.
        func commit(_ writes: [StoreWrite]) -> String? {
            let call = BackgroundCall { [store] () -> String? in
                let result = Mutex<String??>(nil)
                let done = DispatchSemaphore(value: 0)
                store.write(writes) { error in result.withLock { $0 = .some(error.map { "\($0)" }) }; done.signal() }
                done.wait()
                return result.withLock { $0 ?? "no result" }
            }
            return call.wait(seconds: 10) ?? "the other node's commit did not finish"
        }
    }

    /// "ann" with a phone connected and an active session "s1".
    static func setUp() throws -> (GatewayTestServer, GatewayTestClient) {
        let server = try GatewayTestServer()
        let phone = try server.connect(user: "ann", device: "ann-phone", clientType: "ios")
        #expect(try server.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1"]).status == 201)
        _ = try phone.next("session_created")
        return (server, phone)
    }

    static func requestApproval(_ server: GatewayTestServer, timeoutSeconds: Double) throws -> String {
        let created = try server.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": timeoutSeconds])
        #expect(created.status == 201)
        return try #require(GatewayJSON.string(created.json, "requestId"))
    }

    static func decidedElsewhere(_ approval: ApprovalRecord, _ state: ApprovalState) -> ApprovalRecord {
        var decided = approval
        decided.state = state
        decided.decidedByDeviceId = "ann-desk"
        decided.decidedByClientType = "desktop"
        decided.resolvedAt = approval.createdAt + 1
        return decided
    }

    /// An approval requested on this node, then decided by the desk on the other node (durable when this returns).
    static func approvalDecidedElsewhere(timeoutSeconds: Double, _ state: ApprovalState) throws
        -> (GatewayTestServer, GatewayTestClient, String, OtherNode) {
        let (server, phone) = try setUp()
        let id = try requestApproval(server, timeoutSeconds: timeoutSeconds)
        _ = try phone.next("approval_request")
        let other = try OtherNode(server)
        let approval = try #require(try other.store.approval(id: id))
        #expect(other.commit([.decideApproval(decidedElsewhere(approval, state))]) == nil)
        return (server, phone, id, other)
    }

    @Test func anAnswerAfterAnotherNodeAnsweredIsRefusedAndTheStoresWinnerStands() throws {
        let (server, phone, id, other) = try Self.approvalDecidedElsewhere(timeoutSeconds: 30, .approved)

        // This node still holds the request as pending; the store says the desk approved it first.
        let late = try phone.command("deny", ["requestId": id])
        #expect(GatewayJSON.string(late, "error", "code") == "approval_already_resolved")
        let stored = try server.api("GET", "/v1/approvals/\(id)")
        #expect(GatewayJSON.string(stored.json, "state") == "approved")
        #expect(GatewayJSON.string(stored.json, "decidedBy", "deviceId") == "ann-desk")
        #expect(try other.store.approval(id: id)?.state == .approved)
        #expect(try other.store.approval(id: id)?.decidedByDeviceId == "ann-desk")
    }

    @Test func aTimeoutAfterAnotherNodeAnsweredDoesNotFireAndWaitersLearnTheAnswer() throws {
        let (server, phone, id, other) = try Self.approvalDecidedElsewhere(timeoutSeconds: 2, .denied)

        // The long-poll is answered when this node's deadline runs into the store's decision.
        let polled = try server.api("GET", "/v1/approvals/\(id)?wait=10000")
        #expect(GatewayJSON.string(polled.json, "state") == "denied")
        #expect(GatewayJSON.string(polled.json, "decidedBy", "deviceId") == "ann-desk")
        #expect(try other.store.approval(id: id)?.state == .denied)
        // No timeout was appended to the log: the phone's next event is the one published after it.
        #expect(try server.api("POST", "/v1/users/ann/events", ["name": "after"]).status == 201)
        let next = try phone.next(where: { $0["type"] as? String != "reply" })
        #expect(next["type"] as? String == "custom")
    }

    @Test func attachingAfterAnotherNodeTookTheSessionHandsOffTheStoresDevice() throws {
        let (server, phone) = try Self.setUp()
        #expect(try phone.command("session_attach", ["sessionId": "s1"])["ok"] as? Bool == true)
        let other = try OtherNode(server)
        let session = try #require(try other.store.session(id: "s1"))
        let desk = ActiveClient(clientType: "desktop", deviceId: "ann-desk", lastActivityAt: (session.activeClient?.lastActivityAt ?? 0) + 1)
        #expect(other.commit([.setSessionActiveClient(sessionId: "s1", expected: session.activeClient, new: desk)]) == nil)

        // This node believes the phone is active; the store says the desk (on the other node) is.
        let tablet = try server.connect(user: "ann", device: "ann-tab", clientType: "web")
        let attached = try tablet.command("session_attach", ["sessionId": "s1"])
        #expect(GatewayJSON.string(attached, "result", "activeClient", "deviceId") == "ann-tab")
        let handoff = try phone.next("session_handoff")
        #expect(GatewayJSON.string(handoff, "data", "previous", "deviceId") == "ann-desk")
        #expect(GatewayJSON.string(handoff, "data", "handedOffTo", "deviceId") == "ann-tab")
        #expect(try other.store.session(id: "s1")?.activeClient?.deviceId == "ann-tab")
    }

    @Test func endingASessionAnotherNodeEndedAnswersWithTheStoredEnd() throws {
        let (server, phone) = try Self.setUp()
        let other = try OtherNode(server)
        #expect(other.commit([.endSession(sessionId: "s1", endedAt: 1_234)]) == nil)

        let ended = try server.api("POST", "/v1/sessions/s1/end")
        #expect(ended.status == 200)
        #expect(GatewayJSON.string(ended.json, "state") == "ended")
        #expect(try other.store.session(id: "s1")?.endedAt == 1_234)
        // This node appended no second session_ended: the phone's next event is the one published after it.
        #expect(try server.api("POST", "/v1/users/ann/events", ["name": "after"]).status == 201)
        let next = try phone.next(where: { $0["type"] as? String != "reply" })
        #expect(next["type"] as? String == "custom")
    }

    @Test func anOffsetTakenByAnotherNodeIsNotReusedTheEventTakesTheNextOne() throws {
        let (server, phone) = try Self.setUp()
        let other = try OtherNode(server)
        let latest = try other.store.loadSnapshot().latestOffsets["ann"] ?? 0
        let theirs = StoredEvent(userId: "ann", offset: latest + 1, type: "custom", payload: Array(#"{"name":"other-node"}"#.utf8), createdAt: 1)
        #expect(other.commit([.appendEvent(theirs)]) == nil)

        let published = try server.api("POST", "/v1/users/ann/events", ["name": "this-node"])
        #expect(published.status == 201)
        #expect(GatewayJSON.int(published.json, "offset") == latest + 2)
        let delivered = try phone.next("custom")
        #expect(GatewayJSON.int(delivered, "offset") == latest + 2)
        #expect(GatewayJSON.string(delivered, "data", "name") == "this-node")
        #expect(try other.store.events(userId: "ann", after: latest, limit: 10).map(\.offset) == [latest + 1, latest + 2])
    }

    @Test func anApprovalWhoseNodeStoppedTimesOutOnTheOtherNodeOnce() throws {
        // Two servers on one database file, as two nodes on one database; the second sweeps for due approvals.
        let first = try GatewayTestServer()
        #expect(try first.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1"]).status == 201)
        let second = try GatewayTestServer(directory: first.directory) { $0.settings.approvalSweepIntervalMs = 100 }
        let phone = try second.connect(user: "ann", device: "ann-phone")
        let id = try Self.requestApproval(first, timeoutSeconds: 0.5)
        first.shutdown()       // its deadline timer goes with it

        let timeout = try phone.next("approval_timeout", timeout: 10)
        #expect(GatewayJSON.string(timeout, "data", "requestId") == id)
        #expect(GatewayJSON.string(try second.api("GET", "/v1/approvals/\(id)").json, "state") == "timed_out")
        // The second node's offsets were behind the first node's events: none was used twice.
        let reader = try OtherNode(second)
        let offsets = try reader.store.events(userId: "ann", after: 0, limit: 10).map(\.offset)
        #expect(offsets == Array(1...Int64(offsets.count)))
        #expect(offsets.count == 3)          // session_created, approval_request, approval_timeout
    }
}

