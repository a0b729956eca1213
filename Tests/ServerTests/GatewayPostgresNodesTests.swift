import Foundation
import Gateway
@testable import GatewayRuntime
@testable import Server
import Storage
import TestSupport
import Testing

/// Two gateway nodes (two runtimes, two ports) on one PostgreSQL database started by the test: what one node
/// creates the other decides, exactly once, and neither reuses an offset the other took.
@Suite struct GatewayPostgresNodesTests {
    /// Two nodes on a fresh database of their own; the second sweeps for due approvals like a cluster node does.
    static func twoNodes() throws -> (GatewayTestServer, GatewayTestServer, String) {
        let url = try PostgresCluster.shared().createDatabase()
        let a = try GatewayTestServer { $0.postgres = PostgresStoreOptions(url: url) }
        let b = try GatewayTestServer {
            $0.postgres = PostgresStoreOptions(url: url)
            $0.settings.approvalSweepIntervalMs = 100
        }
        return (a, b, url)
    }

    @Test func anApprovalCreatedOnOneNodeIsDecidedThroughTheOtherOnceAndOffsetsAreNeverReused() throws {
        let (a, b, url) = try Self.twoNodes()
        #expect(try a.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1"]).status == 201)
        let created = try a.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": 30])
        #expect(created.status == 201)
        let id = try #require(GatewayJSON.string(created.json, "requestId"))

        // Node B never saw the request in memory: it reads it from the shared store and decides it there.
        let phone = try b.connect(user: "ann", device: "ann-phone")
        let approved = try phone.command("approve", ["requestId": id])
        #expect(approved["ok"] as? Bool == true, "\(approved)")
        let onB = try b.api("GET", "/v1/approvals/\(id)")
        #expect(GatewayJSON.string(onB.json, "state") == "approved")
        #expect(GatewayJSON.string(onB.json, "decidedBy", "deviceId") == "ann-phone")

        // Node A still holds the request as pending; a second answer through A loses to the store's winner.
        let desk = try a.connect(user: "ann", device: "ann-desk", clientType: "desktop")
        let late = try desk.command("deny", ["requestId": id])
        #expect(GatewayJSON.string(late, "error", "code") == "approval_already_resolved", "\(late)")
        #expect(GatewayJSON.string(try a.api("GET", "/v1/approvals/\(id)").json, "state") == "approved")

        // Both nodes append to ann's log: every offset is used once, without gaps.
        #expect(try a.api("POST", "/v1/users/ann/events", ["name": "from-a"]).status == 201)
        #expect(try b.api("POST", "/v1/users/ann/events", ["name": "from-b"]).status == 201)
        #expect(try a.api("POST", "/v1/users/ann/events", ["name": "from-a-again"]).status == 201)
        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { reader.close() }
        let events = try reader.events(userId: "ann", after: 0, limit: 100)
        #expect(events.map(\.offset) == Array(1...Int64(events.count)))
        #expect(events.filter { $0.type == "approval_resolved" }.count == 1)
        let names = events.filter { $0.type == "custom" }.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(names.count == 3 && names.allSatisfy { $0.contains("from-") }, "\(names)")
        #expect(try reader.approval(id: id)?.decidedByDeviceId == "ann-phone")
    }

    @Test func anApprovalWhoseNodeStoppedTimesOutOnTheOtherNodeOnce() throws {
        let (a, b, url) = try Self.twoNodes()
        #expect(try a.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1"]).status == 201)
        let phone = try b.connect(user: "ann", device: "ann-phone")
        let created = try a.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": 0.5])
        let id = try #require(GatewayJSON.string(created.json, "requestId"))
        a.shutdown()       // its deadline timer goes with it

        let timeout = try phone.next("approval_timeout", timeout: 10)
        #expect(GatewayJSON.string(timeout, "data", "requestId") == id)
        #expect(GatewayJSON.string(try b.api("GET", "/v1/approvals/\(id)").json, "state") == "timed_out")
        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { reader.close() }
        let events = try reader.events(userId: "ann", after: 0, limit: 100)
        #expect(events.map(\.offset) == Array(1...Int64(events.count)))
        #expect(events.filter { $0.type == "approval_timeout" }.count == 1)
    }

    /// Alice on node A and Carol on node B each pipeline messages to Bob (no waiting for replies), so both nodes append
    /// to Bob's log at once: the store takes every offset in the insert and reserves every id, so the log is 1…n with
    /// no gap, every message is stored once under an id of its own, in each sender's order, and no commit failed.
    @Test func pipelinedSendsFromTwoNodesToOneUserTakeEveryOffsetOnce() throws {
        let (a, b, url) = try Self.twoNodes()
        for id in ["alice", "bob", "carol"] {
            #expect(try a.api("POST", "/v1/users", ["userId": id]).status == 201)
        }
        #expect(try a.api("POST", "/v1/contacts", ["userA": "alice", "userB": "bob"]).status == 200)
        #expect(try a.api("POST", "/v1/contacts", ["userA": "carol", "userB": "bob"]).status == 200)
        let alice = try a.connect(user: "alice", device: "alice-phone")
        let carol = try b.connect(user: "carol", device: "carol-phone")
        let count = 60
        for i in 0..<count {
            alice.send(["type": "send_message", "id": "a\(i)", "to": "bob", "text": "alice \(i)"])
            carol.send(["type": "send_message", "id": "c\(i)", "to": "bob", "text": "carol \(i)"])
        }
        var ids: [Int64] = []
        for (client, prefix) in [(alice, "a"), (carol, "c")] {
            for i in 0..<count {
                let reply = try client.next(timeout: 30) { $0["type"] as? String == "reply" && $0["id"] as? String == "\(prefix)\(i)" }
                #expect(reply["ok"] as? Bool == true, "\(reply)")
                if let id = (reply["result"] as? [String: Any])?["messageId"] as? NSNumber { ids.append(id.int64Value) }
            }
        }
        #expect(ids.count == 2 * count && Set(ids).count == ids.count)
        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { reader.close() }
        let log = try reader.events(userId: "bob", after: 0, limit: 1_000)
        #expect(log.map(\.offset) == Array(1...Int64(log.count)))
        let texts = log.filter { $0.type == "message" }.map { String(decoding: $0.payload, as: UTF8.self) }
        for sender in ["alice", "carol"] {
            // Each sender's messages once each, in the order sent (nothing was retried, so nothing overtook).
            let order = texts.compactMap { text in (0..<count).first { text.contains("\"\(sender) \($0)\"") } }
            #expect(order == Array(0..<count), "\(sender): \(order)")
        }
        #expect(a.runtime.hub.metrics.commitFailures.load(ordering: .relaxed) == 0)
        #expect(b.runtime.hub.metrics.commitFailures.load(ordering: .relaxed) == 0)
    }

    /// A new user's first devices connect on both nodes at once, so each node creates the user with a hex code of its
    /// own: the store keeps one row and both nodes answer with its code.
    @Test func aUserCreatedOnTwoNodesAtOnceHasOneHexCodeEverywhere() throws {
        let (a, b, url) = try Self.twoNodes()
        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { reader.close() }
        for round in 0..<5 {
            let user = "zoe\(round)"
            let clients = ConnectedClients()
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                if let client = try? (i == 0 ? a : b).connect(user: user, device: "d\(i)") { clients.add(client) }
            }
            #expect(clients.count == 2)
            // The connect does not wait for its commit: wait for both devices' rows, then for each node's answer.
            try ClusterDeliveryTests.waitUntil(timeout: 10, "\(user)'s two devices stored") {
                (try? reader.userEntry(id: user).devices.count) == 2
            }
            let stored = try #require(try reader.userEntry(id: user).user)
            for node in [a, b] {
                try ClusterDeliveryTests.waitUntil(timeout: 10, "\(user)'s hex code on a node") {
                    (try? GatewayJSON.string(node.api("GET", "/v1/users/\(user)").json, "hexCode")) == stored.hexCode
                }
            }
        }
    }

    @Test func aNodeWithoutASharedSecretRefusesToStart() throws {
        let url = try PostgresCluster.shared().createDatabase()
        #expect(throws: ServerError.self) {
            _ = try GatewayTestServer { $0.postgres = PostgresStoreOptions(url: url); $0.hs256Secret = nil }
        }
    }
}

/// Clients connected from several threads at once, kept open until the test ends.
private final class ConnectedClients: @unchecked Sendable {
    // @unchecked: the list is only touched under `lock`.
    private let lock = NSLock()
    private var clients: [GatewayTestClient] = []
    func add(_ client: GatewayTestClient) { lock.lock(); clients.append(client); lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return clients.count }
}
