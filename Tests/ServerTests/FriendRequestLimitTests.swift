import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Friend requests cannot enumerate hex codes or flood a stranger's log (real sockets, real SQLite): misses count per
/// user, per source address and per node; requests count per sender and per sender → recipient pair, cancels per pair;
/// over a limit the answer is `rate_limited` with `retryAfterMs`.
@Suite struct FriendRequestLimitTests {
    /// Creates `ids` over the server API and answers their hex codes.
    static func users(_ server: GatewayTestServer, _ ids: String...) throws -> [String: String] {
        var codes: [String: String] = [:]
        for id in ids {
            let created = try server.api("POST", "/v1/users", ["userId": id])
            #expect(created.status == 201, "\(created.json)")
            let hexCode = try #require(GatewayJSON.string(created.json, "hexCode"))
            codes[id] = hexCode
        }
        return codes
    }

    /// Hex codes no user in `codes` has.
    static func misses(_ count: Int, avoiding codes: [String: String]) -> [String] {
        (0..<count).map { String(format: "%08x", 0x0bad_c0de + $0) }.filter { !codes.values.contains($0) }
    }

    static func request(_ client: GatewayTestClient, _ hexCode: String) throws -> [String: Any] {
        try client.command("friend_request", ["hexCode": hexCode])
    }

    static func expectRefusedForAboutAnHour(_ reply: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(GatewayJSON.string(reply, "error", "code") == "rate_limited", "\(reply)", sourceLocation: sourceLocation)
        let retry = try #require(GatewayJSON.int(reply, "error", "retryAfterMs"), sourceLocation: sourceLocation)
        #expect(retry > 3_000_000 && retry <= 3_600_000, sourceLocation: sourceLocation)
    }

    @Test func hexCodeMissesAreLimitedPerUserAndThenEvenARightCodeIsRefused() throws {
        let server = try GatewayTestServer { $0.settings.relationships.hexCodeMissesPerUserPerHour = 3 }
        let codes = try Self.users(server, "mallory", "bob", "carol")
        let mallory = try server.connect(user: "mallory", device: "m1")
        let errors = try Self.misses(4, avoiding: codes).prefix(4).map { GatewayJSON.string(try Self.request(mallory, $0), "error", "code") }
        #expect(errors == ["user_not_found", "user_not_found", "user_not_found", "rate_limited"])
        try Self.expectRefusedForAboutAnHour(try Self.request(mallory, codes["bob"]!))
        // Another user's allowance is their own.
        let carol = try server.connect(user: "carol", device: "c1")
        #expect(GatewayJSON.string(try Self.request(carol, codes["bob"]!), "result", "state") == "pending")
    }

    @Test func hexCodeMissesAreLimitedPerNodeAcrossUsers() throws {
        let server = try GatewayTestServer { $0.settings.relationships.hexCodeMissesPerNodePerHour = 5 }
        let codes = try Self.users(server, "g1", "g2", "g3", "g4", "bob")
        let misses = Self.misses(8, avoiding: codes)
        var errors: [String?] = []
        for (index, user) in ["g1", "g2", "g3"].enumerated() {
            let guesser = try server.connect(user: user, device: "d")
            for miss in misses[(index * 2)..<(index * 2 + 2)] { errors.append(GatewayJSON.string(try Self.request(guesser, miss), "error", "code")) }
        }
        #expect(errors == Array(repeating: "user_not_found", count: 5) + ["rate_limited"])
        // A fresh identity brings no fresh tries, not even with a right code.
        try Self.expectRefusedForAboutAnHour(try Self.request(try server.connect(user: "g4", device: "d"), codes["bob"]!))
    }

    @Test func hexCodeMissesAreLimitedPerAddressAcrossUsers() throws {
        let server = try GatewayTestServer { $0.settings.relationships.hexCodeMissesPerAddressPerHour = 3 } server: { $0.trustedProxies = ["127.0.0.1"] }
        let codes = try Self.users(server, "g1", "g2", "g3", "friend", "bob")
        func guesser(_ user: String, from client: String) throws -> GatewayTestClient {
            let token = GatewayTestServer.token(user: user, device: "d")
            let socket = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)", headers: [("X-Forwarded-For", client)])
            _ = try socket.next("welcome")
            return socket
        }
        let misses = Self.misses(4, avoiding: codes)
        var errors: [String?] = []
        for (index, user) in ["g1", "g2"].enumerated() {
            let socket = try guesser(user, from: "203.0.113.7")
            for miss in misses[(index * 2)..<(index * 2 + 2)] { errors.append(GatewayJSON.string(try Self.request(socket, miss), "error", "code")) }
        }
        #expect(errors == ["user_not_found", "user_not_found", "user_not_found", "rate_limited"])
        try Self.expectRefusedForAboutAnHour(try Self.request(try guesser("g3", from: "203.0.113.7"), codes["bob"]!))
        // Someone at another address is not locked out by the guesser.
        let friend = try Self.request(try guesser("friend", from: "198.51.100.4"), codes["bob"]!)
        #expect(GatewayJSON.string(friend, "result", "state") == "pending", "\(friend)")
    }

    @Test func requestAndCancelLoopsIntoOneLogAreLimitedPerPairCountingCancels() throws {
        let server = try GatewayTestServer { $0.settings.relationships.friendRequestsPerPairPerHour = 3 }
        let codes = try Self.users(server, "mallory", "bob", "carol")
        let mallory = try server.connect(user: "mallory", device: "m1")
        func cancel(_ reply: [String: Any]) throws -> [String: Any] {
            try mallory.command("friend_request_cancel", ["requestId": GatewayJSON.string(reply, "result", "requestId") ?? ""])
        }
        let one = try Self.request(mallory, codes["bob"]!)
        #expect(GatewayJSON.string(try cancel(one), "result", "state") == "cancelled")
        let second = try Self.request(mallory, codes["bob"]!)
        #expect(GatewayJSON.string(second, "result", "state") == "pending")
        // The pair's third entry was the second request: this cancel is the fourth.
        try Self.expectRefusedForAboutAnHour(try cancel(second))
        try Self.expectRefusedForAboutAnHour(try Self.request(mallory, codes["bob"]!))
        // Bob's log holds the three events that went through (request, cancel, request), and no more.
        let bob = try server.connect(user: "bob", device: "b1", query: "offset=0")
        let resumed = try bob.next("resume")
        let first = try #require(GatewayJSON.int(resumed, "data", "firstReplayed")), last = try #require(GatewayJSON.int(resumed, "data", "lastReplayed"))
        #expect(last - first + 1 == 3, "\(resumed)")
        // Another recipient is another pair.
        #expect(GatewayJSON.string(try Self.request(mallory, codes["carol"]!), "result", "state") == "pending")
    }

    @Test func requestsArePerSenderLimited() throws {
        let server = try GatewayTestServer { $0.settings.relationships.friendRequestsPerHour = 2 }
        let codes = try Self.users(server, "mallory", "bob", "carol", "dave")
        let mallory = try server.connect(user: "mallory", device: "m1")
        #expect(GatewayJSON.string(try Self.request(mallory, codes["bob"]!), "result", "state") == "pending")
        #expect(GatewayJSON.string(try Self.request(mallory, codes["carol"]!), "result", "state") == "pending")
        try Self.expectRefusedForAboutAnHour(try Self.request(mallory, codes["dave"]!))
        // Dave may still ask mallory: the limit is the sender's.
        let dave = try server.connect(user: "dave", device: "d1")
        #expect(GatewayJSON.string(try Self.request(dave, codes["mallory"]!), "result", "state") == "pending")
    }
}
