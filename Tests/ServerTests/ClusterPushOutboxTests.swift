import Dispatch
import Foundation
import Gateway
@testable import GatewayRuntime
@testable import Server
import Storage
import Synchronization
import TestSupport
import Testing

/// A push provider that takes every send and never answers: the node holding it is stuck mid-send, as one that
/// died after claiming its jobs.
final class HeldTransport: PushTransport, @unchecked Sendable {
    // @unchecked: the ids behind the mutex; the held completions are dropped.
    private let ids = Mutex<[String]>([])
    var deliveryIDs: [String] { ids.withLock { $0 } }
    func send(_ notice: PushNotice, to target: PushTarget, deliveryID: String, completion: @escaping @Sendable (PushDeliveryOutcome) -> Void) {
        ids.withLock { $0.append(deliveryID) }
    }
}

/// A push provider that answers `delivered` 1.5 s after each send: longer than a node's poll of the outbox (1 s), so
/// the other node looks at every job while it is being sent.
final class SlowTransport: PushTransport, @unchecked Sendable {
    // @unchecked: the ids behind the mutex.
    private let ids = Mutex<[String]>([])
    var deliveryIDs: [String] { ids.withLock { $0 } }
    func send(_ notice: PushNotice, to target: PushTarget, deliveryID: String, completion: @escaping @Sendable (PushDeliveryOutcome) -> Void) {
        ids.withLock { $0.append(deliveryID) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) { completion(.delivered) }
    }
}

/// Nodes on one PostgreSQL database drain one push outbox: each job is claimed by one node with a lease, a dead
/// node's claims run out and another node sends its jobs, and no job is sent twice.
@Suite struct ClusterPushOutboxTests {
    static let jobs = 12

    /// bob's phone registers a webhook token through `node` and leaves; then `jobs` approvals for bob are created
    /// through `node`, each one push job for the phone. Returns the jobs' delivery ids as the store numbered them.
    static func pushJobsForBob(on node: GatewayTestServer, url: String) throws -> [String] {
        let phone = try node.connect(user: "bob", device: "bob-phone")
        #expect(try phone.command("push_register", ["kind": "webhook", "token": "https://receiver.test/bob"])["ok"] as? Bool == true)
        phone.disconnect()
        #expect(GatewayDeviceScopeTests.waitUntilOffline(node, "bob"))
        #expect(try node.api("POST", "/v1/sessions", ["userId": "bob", "sessionId": "s1"]).status == 201)
        for _ in 0..<jobs {
            #expect(try node.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": 600]).status == 201)
        }
        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { reader.close() }
        let ids = (1...Int64(jobs * 2)).compactMap { try? reader.pushJob(id: $0) }.map { "psh_\($0.id)" }
        #expect(ids.count == jobs, "\(ids)")
        return ids
    }

    /// Polls the store until every job is `sent` (15 s at most).
    static func allSent(_ url: String, count: Int) throws -> Bool {
        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { reader.close() }
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if try reader.pendingPushJobs() == 0 && reader.duePushJobs(now: .max, limit: 1).isEmpty { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    @Test func jobsClaimedByANodeThatStoppedAreSentByTheOtherNodeOnceEach() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let held = HeldTransport()
        let a = try GatewayTestServer(directory: nil, pushTransport: held, pushRetryDelay: nil, pushLeaseMs: 500) {
            $0.postgres = PostgresStoreOptions(url: url)
        }
        let ids = try Self.pushJobsForBob(on: a, url: url)
        // A claimed and started sending every job, then stops without recording any outcome.
        let deadline = Date().addingTimeInterval(10)
        while Set(held.deliveryIDs).count < ids.count && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(Set(held.deliveryIDs) == Set(ids))
        a.shutdown()

        let receiver = ScriptedTransport([:])
        let b = try GatewayTestServer(directory: nil, pushTransport: receiver, pushRetryDelay: nil, pushLeaseMs: 500) {
            $0.postgres = PostgresStoreOptions(url: url)
        }
        #expect(try Self.allSent(url, count: ids.count))
        // Each job once, under the id A used (a receiver that saw A's attempt drops B's as a repeat).
        #expect(receiver.attempts.map(\.deliveryID).sorted() == ids.sorted())
        _ = b
    }

    @Test func twoNodesDrainingOneOutboxSendEachJobOnce() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let (toA, toB) = (SlowTransport(), SlowTransport())
        // The jobs are created on a node without a sender, so both senders find them only by claiming.
        let creator = try GatewayTestServer { $0.postgres = PostgresStoreOptions(url: url) }
        let a = try GatewayTestServer(directory: nil, pushTransport: toA, pushRetryDelay: nil) { $0.postgres = PostgresStoreOptions(url: url) }
        let b = try GatewayTestServer(directory: nil, pushTransport: toB, pushRetryDelay: nil) { $0.postgres = PostgresStoreOptions(url: url) }
        let ids = try Self.pushJobsForBob(on: creator, url: url)
        #expect(try Self.allSent(url, count: ids.count))
        let sent = toA.deliveryIDs + toB.deliveryIDs
        #expect(sent.sorted() == ids.sorted(), "A sent \(toA.deliveryIDs.count), B \(toB.deliveryIDs.count)")
        _ = (a, b)
    }
}
