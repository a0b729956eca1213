import Foundation
@testable import GatewayRuntime
@testable import Server
@testable import Storage
import Testing

/// Connect codes cannot be used up: replacing one is limited per user and per node, and a retired code returns to the
/// pool after its quarantine (real server, real SQLite file).
@Suite struct ConnectCodeRegenerationTests {
    static func regenerate(_ client: GatewayTestClient) throws -> [String: Any] {
        try client.command("connect_code", ["regenerate": true])
    }

    /// One user once replaced its code 20 000 times in 2 s, retiring a code each time.
    @Test func replacingACodeIsLimitedPerUserAndPerNode() throws {
        let server = try GatewayTestServer {
            $0.settings.relationships.connectCodeRegenerationsPerUserPerHour = 2
            $0.settings.relationships.connectCodeRegenerationsPerNodePerHour = 3
        }
        let ann = try server.connect(user: "ann", device: "a")
        let first = try #require(GatewayJSON.string(try ann.command("connect_code"), "result", "code"))   // a first code is not counted
        var codes = [first]
        for _ in 0..<2 { codes.append(try #require(GatewayJSON.string(try Self.regenerate(ann), "result", "code"))) }
        #expect(Set(codes).count == 3)
        let refused = try Self.regenerate(ann)
        #expect(GatewayJSON.string(refused, "error", "code") == "rate_limited", "\(refused)")
        let retry = try #require(GatewayJSON.int(refused, "error", "retryAfterMs"))
        #expect(retry > 3_000_000 && retry <= 3_600_000)
        // The refused replacement changed nothing.
        #expect(GatewayJSON.string(try ann.command("connect_code"), "result", "code") == codes.last)

        // Another user has its own 2, but the node's 3 are down to 1.
        let bob = try server.connect(user: "bob", device: "b")
        _ = try bob.command("connect_code")
        #expect(GatewayJSON.string(try Self.regenerate(bob), "result", "code") != nil)
        let nodeFull = try Self.regenerate(bob)
        #expect(GatewayJSON.string(nodeFull, "error", "code") == "rate_limited", "\(nodeFull)")
    }

    /// Every one of the 10⁶ codes was once someone's and was retired long ago: a new user still gets a code (one of
    /// those, reissued after its quarantine), and whoever types it now reaches the new owner.
    @Test(.timeLimit(.minutes(2))) func codesRetiredBeforeTheQuarantineAreHandedOutAgain() throws {
        let directory = try TemporaryDirectory()
        var server: GatewayTestServer? = try GatewayTestServer(directory: directory)
        let path = server!.databasePath
        server!.shutdown()
        server = nil
        let db = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMs: 5_000)
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999999)
            INSERT INTO connect_codes (code, user_id, created_at, revoked_at) SELECT printf('%06d', i), 'ghost', 1, 2 FROM n
            """)
        db.close()

        let restarted = try GatewayTestServer(directory: directory)
        let ann = try restarted.connect(user: "ann", device: "a")
        let reply = try ann.command("connect_code")
        let code = try #require(GatewayJSON.string(reply, "result", "code"), "\(reply)")
        let bob = try restarted.connect(user: "bob", device: "b")
        let connected = try bob.command("connect", ["code": code])
        #expect(GatewayJSON.string(connected, "result", "userId") == "ann", "\(connected)")
    }
}
