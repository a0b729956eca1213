import Dispatch
import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing
import WebSocketCodec

/// One user cannot take the node's pending-command pool or its sockets from everyone else: each socket and each user
/// has a bounded share of the pool (a flooder is refused `overloaded` with a retry hint while others are served),
/// and a user's sockets per node are capped (one more is refused, the open ones stay).
@Suite struct GatewayFairShareTests {
    /// Holds the hub thread until `release()`: commands the I/O loops read meanwhile stay pending, so the test sees
    /// exactly what the admission did with a burst, whatever the machine's speed.
    final class HubGate: @unchecked Sendable {
        // @unchecked: two semaphores, thread-safe.
        private let entered = DispatchSemaphore(value: 0)
        private let gate = DispatchSemaphore(value: 0)
        private var released = false

        init(_ server: GatewayTestServer) throws {
            server.runtime.hubLoop.execute { [entered, gate] in
                entered.signal()
                gate.wait()
            }
            guard entered.wait(timeout: .now() + 10) == .success else { throw TestFailure("the hub did not take the gate") }
        }

        func release() {
            guard !released else { return }
            released = true
            gate.signal()
        }

        deinit { release() }
    }

    /// Commands read by the server so far: taken (pending for the hub) or refused at once.
    static func commandsRead(_ server: GatewayTestServer) -> Int {
        server.runtime.endpoint.queuedCommands.load(ordering: .relaxed)
            + server.runtime.hub.metrics.commandsRefused.load(ordering: .relaxed)
    }

    /// `count` `history` commands in one write (ids `<prefix>-<i>`): the server reads them as one burst.
    static func burst(_ client: GatewayTestClient, prefix: String, count: Int, with contact: String) {
        var bytes: [UInt8] = []
        for i in 0..<count {
            let text = #"{"id":"\#(prefix)-\#(i)","type":"history","with":"\#(contact)"}"#
            bytes += WebSocketFrameEncoder.frame(opcode: .text, payload: Array(text.utf8), maskKey: UInt32(i + 1))
        }
        client.raw.send(bytes)
    }

    /// The replies to a burst, in id order.
    static func replies(_ client: GatewayTestClient, prefix: String, count: Int) throws -> [[String: Any]] {
        try (0..<count).map { i in
            try client.next(timeout: 10) { $0["type"] as? String == "reply" && $0["id"] as? String == "\(prefix)-\(i)" }
        }
    }

    @Test func aUserFloodingFromSixSocketsGetsOverloadedWhileAnotherUsersCommandsAreServed() throws {
        let server = try GatewayTestServer { options in
            options.maxPendingCommands = 16
            options.maxPendingCommandsPerUser = 4
            options.maxPendingCommandsPerConnection = 2
            options.overloadRetryAfterMs = 250
        }
        try GatewayMessagingTests.makeUsers(server)
        let alice = try (0..<6).map { try server.connect(user: "alice", device: "alice-\($0)") }
        let bob = try server.connect(user: "bob", device: "bob-phone")

        let gate = try HubGate(server)
        let perSocket = 10
        for (index, socket) in alice.enumerated() { Self.burst(socket, prefix: "a\(index)", count: perSocket, with: "bob") }
        try ClusterDeliveryTests.waitUntil(timeout: 10, "alice's bursts read") { Self.commandsRead(server) == 6 * perSocket }
        // With one pool for the node alice's sockets would now hold all 16 places, and bob's commands be refused.
        Self.burst(bob, prefix: "b", count: 2, with: "alice")
        try ClusterDeliveryTests.waitUntil(timeout: 10, "bob's commands read") { Self.commandsRead(server) == 6 * perSocket + 2 }
        #expect(server.runtime.endpoint.pendingCommands(of: "alice") == 4)
        gate.release()

        for reply in try Self.replies(bob, prefix: "b", count: 2) {
            #expect(reply["ok"] as? Bool == true, "\(reply)")
        }
        var served = 0
        for (index, socket) in alice.enumerated() {
            let replies = try Self.replies(socket, prefix: "a\(index)", count: perSocket)
            let ok = replies.filter { $0["ok"] as? Bool == true }.count
            #expect(ok <= 2, "socket \(index) over its share: \(ok)")
            served += ok
            for refused in replies where refused["ok"] as? Bool != true {
                #expect(GatewayMessagingTests.errorCode(refused) == "overloaded")
                #expect(GatewayJSON.int(refused, "error", "retryAfterMs") == 250)
            }
        }
        #expect(served == 4)
        // Every answer gave its place back: alice is served again.
        #expect(server.runtime.endpoint.pendingCommands(of: "alice") == 0)
        #expect(try alice[5].command("history", ["with": "bob"])["ok"] as? Bool == true)
    }

    @Test func oneSocketOverItsShareIsRefusedWhileTheSameUsersOtherSocketIsServed() throws {
        let server = try GatewayTestServer { options in
            options.maxPendingCommandsPerUser = 8
            options.maxPendingCommandsPerConnection = 3
        }
        try GatewayMessagingTests.makeUsers(server)
        let flooder = try server.connect(user: "alice", device: "alice-laptop")
        let phone = try server.connect(user: "alice", device: "alice-phone")
        let gate = try HubGate(server)
        Self.burst(flooder, prefix: "f", count: 20, with: "bob")
        try ClusterDeliveryTests.waitUntil(timeout: 10, "the burst read") { Self.commandsRead(server) == 20 }
        Self.burst(phone, prefix: "p", count: 3, with: "bob")
        try ClusterDeliveryTests.waitUntil(timeout: 10, "the phone's commands read") { Self.commandsRead(server) == 23 }
        gate.release()
        let flood = try Self.replies(flooder, prefix: "f", count: 20)
        #expect(flood.filter { $0["ok"] as? Bool == true }.count == 3)
        let refused = try #require(flood.last)
        #expect(GatewayMessagingTests.errorCode(refused) == "overloaded")
        #expect(GatewayJSON.string(refused, "error", "message")?.contains("this connection already has 3 commands") == true)
        #expect(try Self.replies(phone, prefix: "p", count: 3).allSatisfy { $0["ok"] as? Bool == true })
    }

    @Test func aUserOverTheSocketCapIsRefusedAndTheOpenSocketsStay() throws {
        let server = try GatewayTestServer { options in options.maxSocketsPerUser = 2 }
        try GatewayMessagingTests.makeUsers(server)
        let first = try server.connect(user: "carol", device: "carol-1")
        let second = try server.connect(user: "carol", device: "carol-2")

        // A token on the upgrade: refused before the upgrade, with a JSON body.
        let token = GatewayTestServer.token(user: "carol", device: "carol-3")
        let refused = try GatewayAuthTests.upgrade(server, query: "?token=\(token)")
        #expect(refused.status == 429)
        #expect(refused.errorCode == "too_many_sockets")
        // Authenticating with `auth` after the upgrade: the auth command's error, then close 4029.
        let late = try GatewayTestClient(port: server.port, path: "/v1/ws")
        let reply = try late.command("auth", ["token": token])
        #expect(GatewayMessagingTests.errorCode(reply) == "too_many_sockets")
        #expect(try late.closeCode() == 4029)
        // Another user is not affected, and carol's open sockets still work.
        #expect(try server.connect(user: "alice", device: "alice-phone").command("presence")["ok"] as? Bool == true)
        for socket in [first, second] { #expect(try socket.command("session_list")["ok"] as? Bool == true) }

        // Once one closes, a new one is let in.
        first.disconnect()
        try ClusterDeliveryTests.waitUntil(timeout: 10, "carol's first socket counted out") {
            server.runtime.endpoint.sockets(of: "carol") == 1
        }
        #expect(try server.connect(user: "carol", device: "carol-3").command("session_list")["ok"] as? Bool == true)
    }
}
