import Foundation
@testable import GatewayRuntime
import Glibc
@testable import Server
import Testing

/// `switchboard keygen`, `token mint` and `migrate` against the real executable and a real server.
@Suite struct OperatorCommandTests {
    static let switchboard = GatewayProcess.executable

    static func mint(_ arguments: [String]) throws -> String {
        let result = try runCommand(switchboard, ["token", "mint"] + arguments)
        guard result.status == 0 else { throw TestFailure("token mint: \(result.output)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.timeLimit(.minutes(1))) func mintedTokensFromTheGeneratedSecretAndAnES256KeyPairAreAccepted() throws {
        let directory = try TemporaryDirectory()
        let keygen = try runCommand(Self.switchboard, ["keygen", "es256", "--out", directory.path + "/backend"])
        #expect(keygen.status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path + "/backend.key")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Existing files are never overwritten.
        #expect(try runCommand(Self.switchboard, ["keygen", "es256", "--out", directory.path + "/backend"]).status == 1)

        let port = try GatewayProcess.freePort()
        let config = directory.path + "/es.toml"
        try """
            [server]
            listen = "127.0.0.1:\(port)"
            [auth]
            es256_public_key_file = "\(directory.path)/backend.pub"
            [storage]
            path = "\(directory.path)/es.db"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let server = try ServeProcess(["serve", "--config", config], directory: directory)
        try server.waitUntilServing(port: port)

        let es256 = try Self.mint(["--user", "ann", "--device", "phone", "--es256-private-key", directory.path + "/backend.key"])
        let client = try GatewayTestClient(port: port, path: "/v1/ws?token=\(es256)")
        #expect(GatewayJSON.string(try client.next("welcome"), "data", "deviceId") == "phone")
        // HS256 with the secret serve generated beside the database (standalone mode).
        let hs256 = try Self.mint(["--config", config, "--user", "bob", "--device", "laptop", "--client-type", "desktop"])
        let second = try GatewayTestClient(port: port, path: "/v1/ws?token=\(hs256)")
        #expect(GatewayJSON.string(try second.next("welcome"), "data", "deviceId") == "laptop")
        // A token signed with another secret is refused.
        let keyFile = directory.path + "/other.secret"
        #expect(try runCommand(Self.switchboard, ["keygen", "hs256", "--out", keyFile]).status == 0)
        let secret = try String(contentsOfFile: keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.count == 64)
        let otherConfig = directory.path + "/other.toml"
        try "[auth]\nhs256_secret = \"\(secret)\"\n".write(toFile: otherConfig, atomically: true, encoding: .utf8)
        let foreign = try Self.mint(["--config", otherConfig, "--user", "eve", "--device", "x"])
        let refused = try RawClient(port: port)
        refused.send("GET /v1/ws?token=\(foreign) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        #expect(try refused.readResponse().head.status == 401)
    }

    @Test func mintWithoutAnySecretFailsAndBadFlagsExit2() throws {
        let directory = try TemporaryDirectory()
        let missing = try runCommand(Self.switchboard, ["token", "mint", "--user", "u", "--device", "d", "--storage-path", directory.path + "/none.db"])
        #expect(missing.status == 1)
        #expect(missing.output.contains("no signing secret"))
        #expect(try runCommand(Self.switchboard, ["token", "mint", "--user", "u", "--device", "d", "--ttl", "0"]).status == 2)
        let badId = try runCommand(Self.switchboard, ["token", "mint", "--user", "a b", "--device", "d"])
        #expect(badId.status == 2)
        #expect(badId.output.contains("--user: \"a b\" is not a valid id"))
        #expect(try runCommand(Self.switchboard, ["token", "mint", "--user", "u", "--device", ""]).status == 2)
        #expect(try runCommand(Self.switchboard, ["keygen", "rsa"]).status == 2)
    }

    @Test(.timeLimit(.minutes(1))) func migrateReportsAppliesAndRefusesWhileAServerRuns() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path + "/m.db"
        let dry = try runCommand(Self.switchboard, ["migrate", "--storage-path", db, "--dry-run"])
        #expect(dry.status == 0)
        #expect(dry.output.contains("schema version none (new database)") && dry.output.contains("would apply migration(s) 1,"))
        #expect(!FileManager.default.fileExists(atPath: db))
        let applied = try runCommand(Self.switchboard, ["migrate", "--storage-path", db])
        #expect(applied.status == 0)
        #expect(applied.output.contains("applied migration(s) 1,"))
        let again = try runCommand(Self.switchboard, ["migrate", "--storage-path", db])
        #expect(again.output.contains("nothing to do"))

        let port = try GatewayProcess.freePort()
        let server = try ServeProcess(["serve", "--listen", "127.0.0.1:\(port)", "--storage-path", db], directory: directory)
        try server.waitUntilServing(port: port)
        let busy = try runCommand(Self.switchboard, ["migrate", "--storage-path", db])
        #expect(busy.status == 1)
        #expect(busy.output.contains("another switchboard process (pid \(server.pid))"))
    }
}
