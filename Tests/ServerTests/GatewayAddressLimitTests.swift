import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Guessing limits per source address (real sockets): failed connect codes and new registrations are counted per
/// client address — the peer, or the client a trusted proxy names in `X-Forwarded-For` — and answered with 429 /
/// `rate_limited` and a retry time once used up.
@Suite struct GatewayAddressLimitTests {
    static func register(_ server: GatewayTestServer, _ secret: String, from client: String?) throws -> GatewayHTTP.Response {
        try GatewayHTTP.request(port: server.port, "POST", "/v1/devices/register", ["deviceToken": secret, "platform": "ios"], key: nil,
                                headers: client.map { [("X-Forwarded-For", $0)] } ?? [])
    }

    @Test func registrationsPastTheAddressLimitGet429WithRetryAfterWhileOtherAddressesGoOn() throws {
        let server = try GatewayTestServer { $0.settings.registrationsPerAddressPerHour = 2 } server: { $0.trustedProxies = ["127.0.0.1"] }
        #expect(try Self.register(server, "secret-a-0123456789", from: "203.0.113.7").status == 201)
        #expect(try Self.register(server, "secret-b-0123456789", from: "203.0.113.7").status == 201)
        let third = try Self.register(server, "secret-c-0123456789", from: "203.0.113.7")
        #expect(third.status == 429)
        #expect(third.errorCode == "rate_limited")
        let seconds = try #require(third.retryAfter.flatMap { Int($0) })
        #expect(seconds > 3000 && seconds <= 3600)
        // Another address has its own allowance; a known device still gets its token.
        #expect(try Self.register(server, "secret-c-0123456789", from: "198.51.100.4").status == 201)
        #expect(try Self.register(server, "secret-a-0123456789", from: "203.0.113.7").status == 200)
        // IPv6 addresses of one /64 are one address.
        #expect(try Self.register(server, "secret-d-0123456789", from: "2001:db8:1:2::5").status == 201)
        #expect(try Self.register(server, "secret-e-0123456789", from: "2001:db8:1:2::6").status == 201)
        #expect(try Self.register(server, "secret-f-0123456789", from: "2001:db8:1:2::7").status == 429)
        #expect(try Self.register(server, "secret-f-0123456789", from: "2001:db8:1:3::7").status == 201)
    }

    @Test func forwardedForFromAnUntrustedPeerIsIgnored() throws {
        let server = try GatewayTestServer { $0.settings.registrationsPerAddressPerHour = 2 }
        #expect(try Self.register(server, "secret-a-0123456789", from: "203.0.113.1").status == 201)
        #expect(try Self.register(server, "secret-b-0123456789", from: "203.0.113.2").status == 201)
        // All three came from 127.0.0.1, whatever the header says.
        let third = try Self.register(server, "secret-c-0123456789", from: "203.0.113.3")
        #expect(third.status == 429)
        #expect(third.retryAfter != nil)
    }

    /// A connected device of `user` whose address, as nginx would report it, is `client`.
    static func socket(_ server: GatewayTestServer, _ user: String, from client: String) throws -> GatewayTestClient {
        let token = GatewayTestServer.token(user: user, device: "d")
        let socket = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)", headers: [("X-Forwarded-For", client)])
        _ = try socket.next("welcome")
        return socket
    }

    /// Four identities from one address once looked up 8 000 numbers in 0.1 s, each within its own 2 000: an
    /// address's users share one window, and every address shares the node's.
    @Test func discoveryIsLimitedPerAddressAcrossUsersAndPerNode() throws {
        let server = try GatewayTestServer {
            $0.settings.relationships.discoveryMaxEntriesPerAddressPerWindow = 5
            $0.settings.relationships.discoveryMaxEntriesPerNodePerWindow = 8
        } server: { $0.trustedProxies = ["127.0.0.1"] }
        let three = ["+4915100000001", "+4915100000002", "+4915100000003"]
        func discover(_ user: String, from client: String, _ numbers: [String]) throws -> [String: Any] {
            try Self.socket(server, user, from: client).command("discover", ["numbers": numbers])
        }
        #expect(GatewayJSON.bool(try discover("a1", from: "203.0.113.7", three), "ok") == true)
        // A second identity at the same address: far below its own 2 000, but the address has 2 of its 5 left.
        let sameAddress = try discover("a2", from: "203.0.113.7", three)
        #expect(GatewayJSON.string(sameAddress, "error", "code") == "rate_limited", "\(sameAddress)")
        let retry = try #require(GatewayJSON.int(sameAddress, "error", "retryAfterMs"))
        #expect(retry > 82_800_000 && retry <= 86_400_000)
        // Another address has its own 5, until the node's 8 are used up (a refused attempt counted nowhere).
        #expect(GatewayJSON.bool(try discover("b1", from: "198.51.100.4", three), "ok") == true)
        let nodeFull = try discover("c1", from: "192.0.2.9", three)
        #expect(GatewayJSON.string(nodeFull, "error", "code") == "rate_limited", "\(nodeFull)")
        #expect(GatewayJSON.bool(try discover("c1", from: "192.0.2.9", Array(three.prefix(2))), "ok") == true)
    }

    @Test func failedConnectCodesAreLimitedPerAddressAcrossUsers() throws {
        let server = try GatewayTestServer { $0.settings.connectFailuresPerAddressPerHour = 3 } server: { $0.trustedProxies = ["127.0.0.1"] }
        let owner = try server.connect(user: "owner", device: "o1")
        let code = try #require(GatewayJSON.string(try owner.command("connect_code"), "result", "code"))
        let wrong = code == "000000" ? "000001" : "000000"
        func guesser(_ user: String, from client: String) throws -> GatewayTestClient { try Self.socket(server, user, from: client) }
        var errors: [String?] = []
        for user in ["g1", "g2"] {
            let socket = try guesser(user, from: "203.0.113.7")
            for _ in 0..<2 { errors.append(GatewayJSON.string(try socket.command("connect", ["code": wrong]), "error", "code")) }
        }
        // Each user is far below its own 20 and the node below its 600: the address is what is full.
        #expect(errors == ["connect_code_invalid", "connect_code_invalid", "connect_code_invalid", "rate_limited"])
        let refused = try guesser("g3", from: "203.0.113.7").command("connect", ["code": code])
        #expect(GatewayJSON.string(refused, "error", "code") == "rate_limited")
        let retry = try #require(GatewayJSON.int(refused, "error", "retryAfterMs"))
        #expect(retry > 3_000_000 && retry <= 3_600_000)
        // Someone at another address is not locked out by the guesser.
        let friend = try guesser("friend", from: "198.51.100.4").command("connect", ["code": code])
        #expect(GatewayJSON.bool(friend, "ok") == true)
    }
}
