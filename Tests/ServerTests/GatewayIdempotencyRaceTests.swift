import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Retries that overlap the first attempt (a backend that times out and retries while the first call is still in
/// flight) must still act once per Idempotency-Key.
///
/// The hub marks a key as in flight before it looks it up, and later callers wait for the first call's result
/// (`GatewayHub.idempotent`); before that, concurrent calls with one key each missed and each appended.
@Suite struct GatewayIdempotencyRaceTests {
    /// Sends `count` identical requests at once and returns the JSON field `field` of every 201 answer.
    static func concurrently(_ server: GatewayTestServer, count: Int, _ path: String, _ body: [String: Any], key: String,
                             field: String) -> [String] {
        let port = server.port
        let json = UncheckedBox(body) // each thread only reads it
        let calls = (0..<count).map { _ in
            BackgroundCall { try? GatewayHTTP.request(port: port, "POST", path, json.value, headers: [("Idempotency-Key", key)]) }
        }
        return calls.compactMap { $0.wait(seconds: 5) ?? nil }.filter { $0.status == 201 }.compactMap {
            GatewayJSON.string($0.json, field) ?? GatewayJSON.int($0.json, field).map { "\($0)" }
        }
    }

    @Test func overlappingRetriesWithOneKeyPublishOnce() throws {
        let server = try GatewayTestServer()
        #expect(try server.api("POST", "/v1/users", ["userId": "ivy"]).status == 201)
        for round in 0..<5 {
            let offsets = Self.concurrently(server, count: 6, "/v1/users/ivy/events", ["name": "x"], key: "k\(round)", field: "offset")
            #expect(offsets.count == 6)
            #expect(Set(offsets).count == 1, "round \(round): \(offsets)")
        }
    }

    @Test func overlappingRetriesWithOneKeyRequestOneApproval() throws {
        let server = try GatewayTestServer()
        #expect(try server.api("POST", "/v1/sessions", ["userId": "ivy", "sessionId": "s1"]).status == 201)
        for round in 0..<5 {
            let ids = Self.concurrently(server, count: 6, "/v1/sessions/s1/approvals", ["toolName": "t", "summary": "s"],
                                        key: "a\(round)", field: "requestId")
            #expect(ids.count == 6)
            #expect(Set(ids).count == 1, "round \(round): \(ids)")
        }
    }
}
