import Dispatch
import Foundation
import Storage
import Synchronization
import Testing
import TestSupport
@testable import Gateway
@testable import GatewayRuntime
@testable import Server

/// A background presence push with several nodes: every node holding the watcher computes the same change and would
/// push it; the store's claim lets exactly one of them. Two runtimes on one PostgreSQL database and one real
/// `redis-server`, all started by the test.
@Suite struct ClusterPresencePushTests {
    /// `body` on the node's hub thread, its answer returned to the test thread.
    static func onHub<T: Sendable>(_ node: GatewayTestServer, _ body: @escaping @Sendable (GatewayHub) -> T) -> T {
        let answer = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let hub = UncheckedBox(node.runtime.hub)
        node.runtime.hubLoop.execute {
            answer.withLock { $0 = body(hub.value) }
            done.signal()
        }
        done.wait()
        return answer.withLock { $0! }
    }

    /// bob's devices on every node, as `node` counts them (its own and the other nodes' announced counts).
    static func bobsDevices(as node: GatewayTestServer) -> Int {
        onHub(node) { $0.clusterDevices(of: "bob").connected }
    }

    static func claimedElsewhere(_ nodes: [GatewayTestServer]) -> Int {
        nodes.map { $0.runtime.hub.metrics.presencePushesClaimedElsewhere.value }.reduce(0, +)
    }

    /// Two nodes on one database and Redis; alice and bob are contacts (made through A); bob's phone is connected to
    /// B with a webhook token, and A counts it there.
    static func bobsPhoneOnB() throws -> (
        cluster: ClusterDeliveryTests.Cluster, a: GatewayTestServer, b: GatewayTestServer,
        phone: GatewayTestClient
    ) {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        try GatewayMessagingTests.makeUsers(a)
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        let phone = try b.connect(user: "bob", device: "bob-phone")
        #expect(
            try phone.command("push_register", ["kind": "webhook", "token": "https://receiver.test/bob"])["ok"] as? Bool
                == true)
        return (cluster, a, b, phone)
    }

    /// The stored push jobs of `type` (the first 20 job ids: these tests make fewer).
    static func jobs(_ type: String, in store: PostgresGatewayStore) throws -> [PushJobRecord] {
        try (1...20).compactMap { try store.pushJob(id: Int64($0)) }.filter { $0.notice.type == type }
    }

    @Test func aPresencePushToAWatcherBothNodesHoldIsSentByExactlyOne() throws {
        // bob opts in to presence pushes through B, with a token, and leaves; A has counted his device there.
        let (cluster, a, b, phone) = try Self.bobsPhoneOnB()
        #expect(try phone.command("set_notification_settings", ["presenceUpdates": true])["ok"] as? Bool == true)
        try ClusterDeliveryTests.waitUntil(timeout: 30, "A counts bob's phone on B") { Self.bobsDevices(as: a) == 1 }
        // A hears of the settings change through the bus and reads bob again: until then it would not push for him
        // (on a busy machine that took long enough for alice to come online first, and only B pushed).
        try ClusterDeliveryTests.waitUntil(timeout: 30, "A knows bob opted in") {
            Self.onHub(a) { $0.notificationSettings["bob"]?.presenceUpdates == true }
        }
        phone.disconnect()
        try ClusterDeliveryTests.waitUntil(timeout: 30, "no device of bob's anywhere, on both nodes") {
            Self.bobsDevices(as: a) == 0 && Self.bobsDevices(as: b) == 0
        }

        // alice comes online on A: A (reading her contacts) and B (hearing her count, still holding bob) both push.
        let alice = try a.connect(user: "alice", device: "alice-phone")
        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: cluster.url))
        defer { reader.close() }
        func presenceJobs() throws -> [PushJobRecord] { try Self.jobs("presence", in: reader) }
        do {
            try ClusterDeliveryTests.waitUntil(timeout: 30, "one node's push stored and the other's claim lost") {
                Self.claimedElsewhere([a, b]) == 1 && ((try? presenceJobs().count) ?? 0) >= 1
            }
        } catch {
            // Which half did not happen, for the record.
            let claimsLost = [a, b].map { $0.runtime.hub.metrics.presencePushesClaimedElsewhere.value }
            let watching = [a, b].map { node in
                Self.onHub(node) { hub in
                    "bob \(hub.clusterDevices(of: "bob").connected) alice \(hub.clusterDevices(of: "alice").connected) devices; "
                        + "holds alice \(hub.isLoaded("alice")) with contacts \(hub.contactIds(of: "alice")); "
                        + "bob's presenceUpdates \(hub.notificationSettings["bob"]?.presenceUpdates as Any); "
                        + "bob pushed at \(hub.presencePushes.state(of: "bob").sentAt as Any)"
                }
            }
            throw TestFailure(
                "\(error); claims lost on A, B: \(claimsLost); jobs \(((try? presenceJobs()) ?? []).map(\.createdAt)); as A, B see it: \(watching)"
            )
        }
        let jobs = try presenceJobs()
        #expect(jobs.count == 1, "\(jobs)")
        #expect(jobs.first?.userId == "bob" && jobs.first?.notice.ids["userIds"] == "alice")
        #expect(jobs.first?.notice.collapseID == "presence")
        _ = alice
    }

    /// A message to a user whose only device is connected to the other node reaches it over that socket and is not
    /// pushed; once the device is gone everywhere, the next message is.
    @Test func aMessageToAUserConnectedOnTheOtherNodeIsNotPushed() throws {
        let (cluster, a, _, phone) = try Self.bobsPhoneOnB()
        try ClusterDeliveryTests.waitUntil(timeout: 30, "A counts bob's phone on B") { Self.bobsDevices(as: a) == 1 }

        let alice = try a.connect(user: "alice", device: "alice-phone")
        #expect(try alice.command("send_message", ["to": "bob", "text": "one"])["ok"] as? Bool == true)
        let one = try phone.next("message", timeout: 10)
        #expect(GatewayJSON.string(one, "data", "text") == "one")
        // Acknowledged on B: A's deadline for it reads the stored acknowledgement and pushes nothing.
        #expect(
            try phone.command("ack", ["offset": try #require(GatewayJSON.int(one, "offset"))])["ok"] as? Bool == true)
        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: cluster.url))
        defer { reader.close() }
        func messageJobs() throws -> [PushJobRecord] { try Self.jobs("message", in: reader) }
        // The first message's batch (and any job in it) is committed before its event reached bob.
        #expect(try messageJobs().isEmpty)

        phone.disconnect()
        try ClusterDeliveryTests.waitUntil(timeout: 30, "A counts no device of bob's") { Self.bobsDevices(as: a) == 0 }
        #expect(try alice.command("send_message", ["to": "bob", "text": "two"])["ok"] as? Bool == true)
        let jobs = try messageJobs()  // committed with the event, before the reply
        #expect(jobs.count == 1 && jobs.first?.userId == "bob", "\(jobs)")
    }
}
