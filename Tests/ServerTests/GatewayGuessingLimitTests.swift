import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Connect codes cannot be guessed by spreading tries over many identities: failed attempts and new registrations
/// are also limited for the whole node, answered with `rate_limited` and a retry time (real sockets).
@Suite struct GatewayGuessingLimitTests {
    @Test func failedCodeAttemptsAreLimitedAcrossUsers() throws {
        let server = try GatewayTestServer { $0.settings.connectFailuresPerNodePerHour = 5 }
        let owner = try server.connect(user: "owner", device: "o1")
        let code = try #require(GatewayJSON.string(try owner.command("connect_code"), "result", "code"))
        let wrong = code == "000000" ? "000001" : "000000"
        var errors: [String?] = []
        for user in ["g1", "g2", "g3"] {
            let guesser = try server.connect(user: user, device: "d")
            for _ in 0..<2 { errors.append(GatewayJSON.string(try guesser.command("connect", ["code": wrong]), "error", "code")) }
        }
        #expect(errors == Array(repeating: "connect_code_invalid", count: 5) + ["rate_limited"])
        // A fresh identity gets no fresh tries, not even with the right code.
        let fresh = try server.connect(user: "g4", device: "d")
        let refused = try fresh.command("connect", ["code": code])
        #expect(GatewayJSON.string(refused, "error", "code") == "rate_limited")
        let retry = try #require(GatewayJSON.int(refused, "error", "retryAfterMs"))
        #expect(retry > 3_000_000 && retry <= 3_600_000)
    }

    @Test func newRegistrationsAreLimitedPerNodeWithRetryAfter() throws {
        let server = try GatewayTestServer { $0.settings.registrationsPerNodePerHour = 2 }
        func register(_ secret: String) throws -> GatewayHTTP.Response {
            try GatewayHTTP.request(port: server.port, "POST", "/v1/devices/register", ["deviceToken": secret, "platform": "ios"], key: nil)
        }
        #expect(try register("secret-a-0123456789").status == 201)
        #expect(try register("secret-b-0123456789").status == 201)
        let third = try register("secret-c-0123456789")
        #expect(third.status == 429)
        #expect(third.errorCode == "rate_limited")
        let seconds = try #require(third.retryAfter.flatMap { Int($0) })
        #expect(seconds > 3000 && seconds <= 3600)
        #expect(try register("secret-a-0123456789").status == 200)   // a known device still gets its token
    }
}
