import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Resuming a user's event log with `?offset=N`: replay in order, then live events, never a duplicate or a gap.
@Suite struct GatewayResumeTests {
    /// Publishes a custom event for `user` and returns its offset.
    @discardableResult
    static func publish(_ server: GatewayTestServer, _ user: String, _ n: Int) throws -> Int64 {
        let response = try server.api("POST", "/v1/users/\(user)/events", ["name": "tick", "payload": ["n": n]])
        #expect(response.status == 201)
        return try #require(GatewayJSON.int(response.json, "offset"))
    }

    /// The next `count` `custom` events in arrival order, checking nothing else of the log slips in between.
    static func customEvents(_ client: GatewayTestClient, _ count: Int) throws -> [(offset: Int64, n: Int64)] {
        try (0..<count).map { _ in
            let event = try client.next { $0["type"] as? String != "reply" }
            #expect(event["type"] as? String == "custom")
            return (GatewayJSON.int(event, "offset") ?? -1, GatewayJSON.int(event, "data", "payload", "n") ?? -1)
        }
    }

    @Test func aResumeReplaysInOrderThenGoesLiveWithoutDuplicates() throws {
        let server = try GatewayTestServer()
        #expect(try server.api("POST", "/v1/users", ["userId": "rita"]).status == 201)
        let n = 6
        let offsets = try (1...n).map { try Self.publish(server, "rita", $0) }
        #expect(offsets == Array(1...Int64(n)))

        let token = GatewayTestServer.token(user: "rita", device: "rita-phone")
        let first = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)&offset=0")
        let welcome = try first.next { _ in true }
        #expect(welcome["type"] as? String == "welcome")
        #expect(GatewayJSON.int(welcome, "data", "latestOffset") == Int64(n))
        let resume = try first.next { _ in true }
        #expect(resume["type"] as? String == "resume")
        #expect(GatewayJSON.bool(resume, "data", "recovered") == true)
        #expect(GatewayJSON.int(resume, "data", "requestedOffset") == 0)
        #expect(GatewayJSON.int(resume, "data", "firstReplayed") == 1)
        #expect(GatewayJSON.int(resume, "data", "lastReplayed") == Int64(n))
        let replayed = try Self.customEvents(first, n)
        #expect(replayed.map(\.offset) == Array(1...Int64(n)))
        #expect(replayed.map(\.n) == Array(1...Int64(n)))

        try Self.publish(server, "rita", n + 1)
        let live = try Self.customEvents(first, 1)
        #expect(live.map(\.offset) == [Int64(n + 1)])
        #expect(try first.collect("custom", for: 0.2).isEmpty)

        // Caught up: nothing is replayed, the next live event comes once.
        let second = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)&offset=\(n + 1)")
        let caughtUp = try second.next("resume")
        #expect(GatewayJSON.bool(caughtUp, "data", "recovered") == true)
        #expect(GatewayJSON.value(caughtUp, ["data", "firstReplayed"]) == nil)
        // One behind: exactly the missed event, then live.
        let third = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)&offset=\(n)")
        #expect(try third.next { _ in true }["type"] as? String == "welcome")
        #expect(GatewayJSON.int(try third.next { _ in true }, "data", "firstReplayed") == Int64(n + 1))
        #expect(try Self.customEvents(third, 1).map(\.offset) == [Int64(n + 1)])
        try Self.publish(server, "rita", n + 2)
        for client in [second, third] {
            let events = try client.collect("custom", for: 0.3)
            #expect(events.compactMap { GatewayJSON.int($0, "offset") } == [Int64(n + 2)])
        }
    }

    @Test func aResumeDuringPublishingHasNoGapsOrDuplicates() throws {
        let server = try GatewayTestServer()
        #expect(try server.api("POST", "/v1/users", ["userId": "sam"]).status == 201)
        for i in 1...20 { try Self.publish(server, "sam", i) }
        let port = server.port
        // Keep publishing while the device resumes, so live events race the replay read.
        let publisher = BackgroundCall { () -> Int in
            var count = 0
            for i in 21...80 {
                guard let r = try? GatewayHTTP.request(port: port, "POST", "/v1/users/sam/events", ["name": "tick", "payload": ["n": i]]),
                      r.status == 201 else { break }
                count += 1
            }
            return count
        }
        let token = GatewayTestServer.token(user: "sam", device: "sam-desk", clientType: "desktop")
        let client = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)&offset=5")
        #expect(try client.next { _ in true }["type"] as? String == "welcome")
        #expect(GatewayJSON.bool(try client.next { _ in true }, "data", "recovered") == true)
        #expect(publisher.wait(seconds: 10) == 60)
        let events = try Self.customEvents(client, 75)
        #expect(events.map(\.offset) == Array(6...80))
        #expect(events.map(\.n) == Array(6...80))
        #expect(try client.collect("custom", for: 0.2).isEmpty)
    }

    /// A device whose offset is ahead of the log (the database was restored from an older backup) is told
    /// `recovered: false` and continues from the log's latest offset: the log's next events reach it, none withheld
    /// until the log catches up with the device's old offset.
    @Test func anOffsetAheadOfTheLogContinuesFromTheLatestOffset() throws {
        let server = try GatewayTestServer()
        #expect(try server.api("POST", "/v1/users", ["userId": "uli"]).status == 201)
        for n in 1...2 { try Self.publish(server, "uli", n) }
        let token = GatewayTestServer.token(user: "uli", device: "uli-phone")
        let client = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)&offset=50")
        let welcome = try client.next { _ in true }
        #expect(GatewayJSON.int(welcome, "data", "latestOffset") == 2)
        let resume = try client.next { _ in true }
        #expect(resume["type"] as? String == "resume")
        #expect(GatewayJSON.bool(resume, "data", "recovered") == false)
        #expect(GatewayJSON.int(resume, "data", "requestedOffset") == 50)
        #expect(GatewayJSON.value(resume, ["data", "firstReplayed"]) == nil)
        for n in 3...5 { try Self.publish(server, "uli", n) }
        let live = try Self.customEvents(client, 3)
        #expect(live.map(\.offset) == [3, 4, 5])
        #expect(live.map(\.n) == [3, 4, 5])
        // Acknowledging the new log's offsets works (the old offset 50 would be refused).
        client.send(["id": "a1", "type": "ack", "offset": 5])
        #expect(GatewayJSON.bool(try client.next("reply"), "ok") == true)
    }
}

/// A replay far bigger than `websocket.max_outbound_bytes` is paced by the socket draining, not cut by the
/// slow-consumer rule: a client reading at full speed gets every event, then live traffic.
@Suite struct GatewayLargeResumeTests {
    @Test func aResumeLargerThanTheOutboundLimitReachesAFastReaderWhole() throws {
        let server = try GatewayTestServer(server: { $0.webSocket.maxOutboundBytes = 64 * 1024 })
        #expect(try server.api("POST", "/v1/users", ["userId": "vera"]).status == 201)
        let count = 300
        let filler = String(repeating: "x", count: 2000)   // 300 × ~2 KB ≈ 9× the outbound limit
        for n in 1...count {
            let response = try server.api("POST", "/v1/users/vera/events", ["name": "tick", "payload": ["n": n, "pad": filler]])
            #expect(response.status == 201)
        }
        let token = GatewayTestServer.token(user: "vera", device: "vera-phone")
        let client = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)&offset=0")
        #expect(try client.next { _ in true }["type"] as? String == "welcome")
        #expect(try client.next { _ in true }["type"] as? String == "resume")
        let replayed = try GatewayResumeTests.customEvents(client, count)
        #expect(replayed.map(\.offset) == Array(1...Int64(count)))
        // Still open and live after the replay.
        try GatewayResumeTests.publish(server, "vera", count + 1)
        #expect(try GatewayResumeTests.customEvents(client, 1).map(\.offset) == [Int64(count + 1)])
    }
}
