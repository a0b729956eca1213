import Foundation
import Gateway
@testable import GatewayRuntime
@testable import Server
import Storage
import TestSupport
import Testing

/// A node on PostgreSQL while the database is down (stopped, then started again): writes fail at once with a
/// retryable `storage_failed` (503 with `Retry-After` on the server API, `retryAfterMs` on the socket) and store
/// nothing; a device resuming meanwhile is asked to reconnect (close 1011) instead of being told its events are gone;
/// once the database is back the node serves again by itself and the device gets every event it missed, once.
@Suite struct ClusterStorageOutageTests {
    @Test(.timeLimit(.minutes(2))) func writesFailFastAndRetryablyWhileTheDatabaseIsDownAndNothingIsLostAfterwards() throws {
        let cluster = try PostgresCluster()   // its own: stopped and started below
        defer { cluster.stop() }
        let url = try cluster.createDatabase()
        let node = try GatewayTestServer { $0.postgres = PostgresStoreOptions(url: url) }
        #expect(try node.api("POST", "/v1/users", ["userId": "ann"]).status == 201)
        let phone = try node.connect(user: "ann", device: "ann-phone")
        var accepted: [String] = []
        for i in 0..<3 {
            #expect(try node.api("POST", "/v1/users/ann/events", ["name": "before\(i)"]).status == 201)
            accepted.append("before\(i)")
        }
        let seen = try ClusterDeliveryTests.events(on: phone, until: "before2")
        let lastSeen = try #require(ClusterDeliveryTests.offsets(seen).last) + 1   // before2's offset
        phone.disconnect()

        try cluster.stopServer()
        // Every write is refused at once, marked retryable; none of them is stored (checked after the restart).
        for i in 0..<3 {
            let started = Date()
            let refused = try node.api("POST", "/v1/users/ann/events", ["name": "refused\(i)"])
            let seconds = Date().timeIntervalSince(started)
            #expect(refused.status == 503, "\(refused.json)")
            #expect(refused.errorCode == "storage_failed")
            #expect(refused.retryAfter == "1", "Retry-After: \(String(describing: refused.retryAfter))")
            #expect(seconds < 3, "a refusal took \(seconds) s")
        }
        // The same on the socket: a device's write gets the retry hint in its reply.
        let desk = try node.connect(user: "ann", device: "ann-desk", clientType: "desktop")
        let reply = try desk.command("connect_code", timeout: 10)
        #expect(GatewayJSON.string(reply, "error", "code") == "storage_failed", "\(reply)")
        #expect(GatewayJSON.int(reply, "error", "retryAfterMs") == 500, "\(reply)")   // GatewayError.storageRetryAfterMs
        // A resume cannot read the log: the device is told to come back (1011), not that its events are gone.
        let token = GatewayTestServer.token(user: "ann", device: "ann-phone")
        let early = try GatewayTestClient(port: node.port, path: "/v1/ws?token=\(token)&offset=\(lastSeen)")
        _ = try early.next("welcome", timeout: 10)
        #expect(try early.closeCode(timeout: 10) == 1011)

        try cluster.startServer()
        // Service comes back by itself: the next writes succeed (the store reconnects on its next use).
        let deadline = Date().addingTimeInterval(30)
        while true {
            let published = try node.api("POST", "/v1/users/ann/events", ["name": "after0"])
            if published.status == 201 { break }
            #expect(published.errorCode == "storage_failed" && Date() < deadline, "\(published.json)")
            guard Date() < deadline else { return }
            usleep(100_000)   // a client's retry pause, not a synchronisation
        }
        accepted.append("after0")
        #expect(try node.api("POST", "/v1/users/ann/events", ["name": "after1"]).status == 201)
        accepted.append("after1")
        // The phone resumes from before2: exactly what was accepted after it, once, in order, offsets without a gap.
        let back = try GatewayTestClient(port: node.port, path: "/v1/ws?token=\(token)&offset=\(lastSeen)")
        _ = try back.next("welcome", timeout: 10)
        #expect(GatewayJSON.bool(try back.next("resume", timeout: 10), "data", "recovered") == true)
        #expect(try node.api("POST", "/v1/users/ann/events", ["name": "end"]).status == 201)
        let missed = try ClusterDeliveryTests.events(on: back, until: "end")
        #expect(missed.compactMap { GatewayJSON.string($0, "data", "name") } == ["after0", "after1"])
        #expect(ClusterDeliveryTests.offsets(missed) == [lastSeen + 1, lastSeen + 2])
        withExtendedLifetime(desk) {}
    }
}
