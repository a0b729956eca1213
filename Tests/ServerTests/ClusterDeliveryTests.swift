import Foundation
import Gateway
@testable import GatewayRuntime
import Redis
@testable import Server
import Storage
import Synchronization
import TestSupport
import Testing

/// Cross-node delivery: two gateway nodes (two runtimes, two ports) on one PostgreSQL database and one real
/// `redis-server`, all started by the test. An event committed on one node reaches the devices on the other through
/// a Redis notice and a store read, once per device, in offset order; with Redis gone it still arrives (the nodes
/// re-read their users' logs every second) and once Redis is back, notices carry it again.
@Suite struct ClusterDeliveryTests {
    final class Cluster {
        let url: String
        var redis: RedisServer
        var nodes: [GatewayTestServer] = []
        init() throws {
            signal(SIGPIPE, SIG_IGN)
            url = try PostgresCluster.shared().createDatabase()
            redis = try RedisServer(ready: Self.redisReady)
        }

        static func redisReady(_ path: String) -> Bool {
            (try? RedisConnection(.unix(path: path), timeoutMs: 500)) != nil
        }

        @discardableResult
        /// `configure` adjusts the node's options after the cluster's (the acknowledgement delays).
        func addNode(configure: (inout GatewayRuntime.Options) -> Void = { _ in }) throws -> GatewayTestServer {
            let socket = redis.socketPath
            let node = try GatewayTestServer { [url] in
                $0.postgres = PostgresStoreOptions(url: url)
                $0.redisURL = "unix://" + socket
                configure(&$0)
            }
            nodes.append(node)
            return node
        }

        /// Kills Redis (SIGKILL) and starts a new one on the same socket.
        func killRedis() { redis.stop(keepingDirectory: true) }
        func restartRedis() throws { redis = try RedisServer(reusing: redis.directory, ready: Self.redisReady) }

        /// Waits until every node's subscriber is connected (`switchboard_cluster_bus_up`), polling its gauge.
        func waitForBus(up: Bool, timeout: Double = 30) throws {
            try ClusterDeliveryTests.waitUntil(timeout: timeout, "cluster bus \(up ? "up" : "down") on every node") {
                nodes.allSatisfy { $0.runtime.hub.metrics.clusterBusUp.load(ordering: .relaxed) == (up ? 1 : 0) }
            }
        }
    }

    static func waitUntil(timeout: Double, _ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw TestFailure("not within \(timeout) s: \(what)") }
            usleep(5_000)  // polling a condition, not waiting for one
        }
    }

    /// The `custom` or `message` events a device receives until the one named `marker`, checked to be in strict offset
    /// order with no repeats.
    static func events(on device: GatewayTestClient, until marker: String, timeout: Double = 60) throws -> [[String:
        Any]]
    {
        var received: [[String: Any]] = []
        while true {
            let event = try device.next(timeout: timeout) { ["custom", "message"].contains($0["type"] as? String) }
            if GatewayJSON.string(event, "data", "name") == marker { return received }
            received.append(event)
        }
    }

    static func offsets(_ events: [[String: Any]]) -> [Int64] {
        events.compactMap { ($0["offset"] as? NSNumber)?.int64Value }
    }

    static func publish(_ node: GatewayTestServer, to user: String, name: String) throws {
        let reply = try node.api("POST", "/v1/users/\(user)/events", ["name": name])
        guard reply.status == 201 else { throw TestFailure("publish \(name): \(reply.status) \(reply.json)") }
    }

    @Test func directMessagesSentOnOneNodeReachTheRecipientOnTheOtherOnceAndInOrder() throws {
        let cluster = try Cluster()
        let a = try cluster.addNode()
        try GatewayMessagingTests.makeUsers(a)  // before B starts: B loads them with its snapshot
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        let alice = try a.connect(user: "alice", device: "alice-phone")
        let bob = try b.connect(user: "bob", device: "bob-phone")

        // One at a time first: the time from the sender's reply (committed on A) to the recipient's frame on B.
        var latencies: [Double] = []
        for i in 0..<20 {
            let start = Date()
            #expect(try alice.command("send_message", ["to": "bob", "text": "m\(i)"])["ok"] as? Bool == true)
            let message = try bob.next("message", timeout: 30)
            latencies.append(Date().timeIntervalSince(start) * 1000)
            #expect(GatewayJSON.string(message, "data", "text") == "m\(i)")
        }
        latencies.sort()
        print("cross-node DM latency (send to receipt, ms): median \(latencies[10]), max \(latencies.last!)")

        // Then 180 back to back, and a marker after them.
        for i in 20..<200 {
            #expect(try alice.command("send_message", ["to": "bob", "text": "m\(i)"])["ok"] as? Bool == true)
        }
        try Self.publish(a, to: "bob", name: "end")
        let rest = try Self.events(on: bob, until: "end")
        #expect(rest.compactMap { GatewayJSON.string($0, "data", "text") } == (20..<200).map { "m\($0)" })
        let offsets = Self.offsets(rest)
        #expect(offsets.count == 180 && zip(offsets, offsets.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(offsets)")
        #expect(b.runtime.hub.metrics.clusterNotices.value > 0)
    }

    @Test func aUserWithADeviceOnEachNodeGetsEveryEventOnBothInOffsetOrder() throws {
        let cluster = try Cluster()
        let a = try cluster.addNode()
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        let phone = try a.connect(user: "ann", device: "ann-phone")
        let desk = try b.connect(user: "ann", device: "ann-desk", clientType: "desktop")

        // The backend appends through both nodes at once: each node's next event usually follows one of the other's
        // it has not heard of yet, so it waits for the read of the missing one.
        // A node that loses the race for an offset retries with the store's latest, after a random wait from the third
        // attempt on: every append is stored, none answers 503.
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { side in
            for i in 0..<100 {
                let name = "\(side == 0 ? "a" : "b")\(i)"
                let reply = try? (side == 0 ? a : b).api("POST", "/v1/users/ann/events", ["name": name])
                if reply?.status != 201 {
                    failures.withLock {
                        $0.append("\(name): \(reply.map { "\($0.status) \($0.json)" } ?? "no answer")")
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        try Self.publish(a, to: "ann", name: "end")
        var sequences: [[String]] = []
        for device in [phone, desk] {
            let events = try Self.events(on: device, until: "end")
            let names = events.compactMap { GatewayJSON.string($0, "data", "name") }
            #expect(Set(names) == Set((0..<100).flatMap { ["a\($0)", "b\($0)"] }) && names.count == 200)
            #expect(names.filter { $0.hasPrefix("a") } == (0..<100).map { "a\($0)" })  // each node's own in order
            let offsets = Self.offsets(events)
            #expect(offsets.count == 200 && zip(offsets, offsets.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(offsets)")
            sequences.append(names)
        }
        #expect(sequences[0] == sequences[1])  // the log's one order on both devices
    }

    @Test func aDesktopAttachingOnOneNodeHandsTheSessionOffFromThePhoneOnTheOther() throws {
        let cluster = try Cluster()
        let a = try cluster.addNode()
        #expect(try a.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1"]).status == 201)
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        let phone = try a.connect(user: "ann", device: "ann-phone")
        #expect(try phone.command("session_attach", ["sessionId": "s1"])["ok"] as? Bool == true)
        // B's memory still has no active client for s1: the store's answer (the phone) is what it hands off from.
        let desk = try b.connect(user: "ann", device: "ann-desk", clientType: "desktop")
        let attached = try desk.command("session_attach", ["sessionId": "s1"])
        #expect(GatewayJSON.string(attached, "result", "activeClient", "deviceId") == "ann-desk", "\(attached)")
        let handoff = try phone.next("session_handoff", timeout: 30)
        #expect(GatewayJSON.string(handoff, "data", "sessionId") == "s1")
        #expect(GatewayJSON.string(handoff, "data", "handedOffTo", "deviceId") == "ann-desk")
        #expect(GatewayJSON.string(handoff, "data", "previous", "deviceId") == "ann-phone")
        // The desk hears the same event from its own node's log, once.
        #expect(GatewayJSON.string(try desk.next("session_handoff"), "data", "handedOffTo", "deviceId") == "ann-desk")
        try Self.publish(b, to: "ann", name: "end")
        #expect(try Self.events(on: desk, until: "end").isEmpty)
        #expect(try Self.events(on: phone, until: "end").isEmpty)
        // once each
        #expect(try phone.collect("session_handoff", for: 0).isEmpty && desk.collect("session_handoff", for: 0).isEmpty)
    }

    @Test func aDeviceResumingOnTheOtherNodeGetsWhatItMissedThenLiveEventsFromBothNodesInOrder() throws {
        let cluster = try Cluster()
        let a = try cluster.addNode()
        #expect(try a.api("POST", "/v1/users", ["userId": "ann"]).status == 201)
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        let phone = try a.connect(user: "ann", device: "ann-phone")
        for i in 0..<5 { try Self.publish(a, to: "ann", name: "seen\(i)") }
        try Self.publish(a, to: "ann", name: "end-seen")
        let seen = try Self.events(on: phone, until: "end-seen")
        let lastSeen = try #require(Self.offsets(seen).last) + 1  // end-seen's offset
        phone.disconnect()
        for i in 0..<5 { try Self.publish(i % 2 == 0 ? a : b, to: "ann", name: "missed\(i)") }

        // The phone comes back through the other node (as after its node died) and resumes from its offset.
        let token = GatewayTestServer.token(user: "ann", device: "ann-phone")
        let back = try GatewayTestClient(port: b.port, path: "/v1/ws?token=\(token)&offset=\(lastSeen)")
        _ = try back.next("welcome")
        #expect(GatewayJSON.bool(try back.next("resume"), "data", "recovered") == true)
        for i in 0..<5 { try Self.publish(i % 2 == 0 ? a : b, to: "ann", name: "live\(i)") }
        try Self.publish(a, to: "ann", name: "end")
        let events = try Self.events(on: back, until: "end")
        #expect(
            events.compactMap { GatewayJSON.string($0, "data", "name") } == (0..<5).map { "missed\($0)" }
                + (0..<5).map { "live\($0)" })
        #expect(Self.offsets(events) == Array((lastSeen + 1)...(lastSeen + 10)))
    }

    /// Offsets a stopping node's hub answered, recorded from its thread.
    final class Answers: Sendable {
        let offsets = Mutex<[Int64]>([])
    }

    @Test func eventsANodeCommitsWhileItStopsAreAnnouncedBeforeItsBusStops() throws {
        let cluster = try Cluster()
        let a = try cluster.addNode()
        #expect(try a.api("POST", "/v1/users", ["userId": "ann"]).status == 201)
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        let desk = try b.connect(user: "ann", device: "ann-desk")
        // Appends queued on A's hub just before A shuts down: they commit while it stops.
        let (hub, answers) = (a.runtime.hub, Answers())
        a.runtime.scheduler.execute {
            for i in 0..<5 {
                hub.publish(userId: "ann", name: "last\(i)", payload: nil, idempotencyKey: nil) { result in
                    if case .success(let offset) = result { answers.offsets.withLock { $0.append(offset) } }
                }
            }
        }
        a.shutdown()
        #expect(answers.offsets.withLock { $0 } == [1, 2, 3, 4, 5])  // answered before the node stopped
        // B hears of them through A's last notices (the bus is up, so B does not re-read on its own): a marker
        // published on B would fetch them as a gap instead, so none is sent until they arrived.
        let arrived = try (0..<5).map { _ in try desk.next("custom", timeout: 15) }
        #expect(arrived.compactMap { GatewayJSON.string($0, "data", "name") } == (0..<5).map { "last\($0)" })
        #expect(Self.offsets(arrived) == [1, 2, 3, 4, 5])
        try Self.publish(b, to: "ann", name: "end")
        #expect(try Self.events(on: desk, until: "end").isEmpty)  // each once
    }

    @Test func withRedisKilledEventsStillArriveAndOnceItIsBackNoticesCarryThemAgain() throws {
        let cluster = try Cluster()
        let a = try cluster.addNode()
        #expect(try a.api("POST", "/v1/users", ["userId": "ann"]).status == 201)  // known to B's snapshot too
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        let desk = try b.connect(user: "ann", device: "ann-desk")
        for i in 0..<10 { try Self.publish(a, to: "ann", name: "before\(i)") }
        try Self.publish(a, to: "ann", name: "end-before")
        #expect(try Self.events(on: desk, until: "end-before").count == 10)

        cluster.killRedis()
        try cluster.waitForBus(up: false)
        let rechecksBefore = b.runtime.hub.metrics.clusterRechecks.value
        let downStart = Date()
        for i in 0..<20 { try Self.publish(a, to: "ann", name: "down\(i)") }
        try Self.publish(a, to: "ann", name: "end-down")
        let down = try Self.events(on: desk, until: "end-down")
        print(
            "with Redis down, 21 events published on A reached B after \(Int(Date().timeIntervalSince(downStart) * 1000)) ms"
        )
        #expect(down.compactMap { GatewayJSON.string($0, "data", "name") } == (0..<20).map { "down\($0)" })
        #expect(b.runtime.hub.metrics.clusterRechecks.value > rechecksBefore)  // they came through the re-reads

        try cluster.restartRedis()
        try cluster.waitForBus(up: true)
        let noticesBefore = b.runtime.hub.metrics.clusterNotices.value
        let rechecksAfter = b.runtime.hub.metrics.clusterRechecks.value
        var latencies: [Double] = []
        for i in 0..<10 {
            let start = Date()
            try Self.publish(a, to: "ann", name: "after\(i)")
            let event = try desk.next("custom", timeout: 30)
            latencies.append(Date().timeIntervalSince(start) * 1000)
            #expect(GatewayJSON.string(event, "data", "name") == "after\(i)")
        }
        latencies.sort()
        print(
            "cross-node latency after Redis restarted (publish call to receipt, ms): median \(latencies[5]), max \(latencies.last!)"
        )
        #expect(b.runtime.hub.metrics.clusterNotices.value >= noticesBefore + 10)
        #expect(b.runtime.hub.metrics.clusterRechecks.value == rechecksAfter)  // no re-reads: the bus is up
    }
}
