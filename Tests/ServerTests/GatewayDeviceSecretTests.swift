import Foundation
@testable import GatewayRuntime
@testable import Server
@testable import Storage
import Testing

/// Standalone device secrets never reach the database file in clear (real server, real SQLite file, a restart).
@Suite struct GatewayDeviceSecretTests {
    static let secret = "install-7f3a9c1e-secret"
    /// `echo -n install-7f3a9c1e-secret | sha256sum`
    static let digest = "1769176b38af84b15e237ff33f42bef2820be2fef036a4d3c5fc5639cd08ced9"

    static func register(_ server: GatewayTestServer) throws -> GatewayHTTP.Response {
        try GatewayHTTP.request(port: server.port, "POST", "/v1/devices/register", ["deviceToken": secret, "platform": "ios"], key: nil)
    }

    static func storedTokens(_ path: String) throws -> [String] {
        let db = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { db.close() }
        return try db.query("SELECT device_token FROM devices WHERE device_token IS NOT NULL") { $0.string(0) }
    }

    /// Two installations that both chose "hunter2" would be one user: weak secrets are refused before anything is
    /// created, with the documented code, and a strong one from the same address still registers.
    @Test func aShortOrRepetitiveSecretIsRefusedWithDeviceTokenTooWeak() throws {
        let server = try GatewayTestServer(directory: try TemporaryDirectory())
        for weak in ["hunter2", "0123456789abcde", String(repeating: "a", count: 32), String(repeating: "ab", count: 16)] {
            let refused = try GatewayHTTP.request(port: server.port, "POST", "/v1/devices/register", ["deviceToken": weak, "platform": "ios"], key: nil)
            #expect(refused.status == 400, "\(weak): \(refused.json)")
            #expect(refused.errorCode == "device_token_too_weak", "\(weak)")
        }
        #expect(try Self.register(server).status == 201)
    }

    @Test func theSecretIsStoredAsItsSHA256AndStillRecognisedAfterARestart() throws {
        let directory = try TemporaryDirectory()
        var server: GatewayTestServer? = try GatewayTestServer(directory: directory)
        let first = try Self.register(server!)
        #expect(first.status == 201)
        let again = try Self.register(server!)
        #expect(again.status == 200)   // found, not created
        #expect(GatewayJSON.string(again.json, "deviceId") == GatewayJSON.string(first.json, "deviceId"))
        let path = server!.databasePath
        server!.shutdown()
        server = nil

        #expect(try Self.storedTokens(path) == [Self.digest])

        let restarted = try GatewayTestServer(directory: directory)
        let later = try Self.register(restarted)
        #expect(GatewayJSON.string(later.json, "userId") == GatewayJSON.string(first.json, "userId"))
        #expect(GatewayJSON.string(later.json, "deviceId") == GatewayJSON.string(first.json, "deviceId"))
        let other = try GatewayHTTP.request(port: restarted.port, "POST", "/v1/devices/register",
                                            ["deviceToken": Self.secret + "x", "platform": "ios"], key: nil)
        #expect(GatewayJSON.string(other.json, "userId") != GatewayJSON.string(first.json, "userId"))
    }
}
