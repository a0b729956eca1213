import Foundation
import Glibc
import Testing

/// `auth.standalone = "auto"` on the real executable: an operator with an app backend (API keys) does not also get a
/// gateway where anyone can mint identities, unless the file says `standalone = true`; `check-config` says which.
@Suite struct StandaloneModeServeTests {
    static func register(port: UInt16) throws -> GatewayHTTP.Response {
        try GatewayHTTP.request(port: port, "POST", "/v1/devices/register",
                                ["deviceToken": "standalone-mode-secret-4f9a2c", "platform": "ios"], key: nil)
    }

    @Test(.timeLimit(.minutes(1))) func withAPIKeysAutoTurnsSelfRegistrationOffAndTrueTurnsItOn() throws {
        let auto = try TemporaryDirectory()
        let (process, port) = try GatewayProcess.launch(directory: auto, standalone: "\"auto\"")
        defer { kill(process.processIdentifier, SIGKILL) }
        let refused = try Self.register(port: port)
        #expect(refused.status == 404, "\(refused.json)")

        let explicit = try TemporaryDirectory()
        let (onProcess, onPort) = try GatewayProcess.launch(directory: explicit, standalone: "true")
        defer { kill(onProcess.processIdentifier, SIGKILL) }
        let registered = try Self.register(port: onPort)
        #expect(registered.status == 201, "\(registered.json)")
    }

    @Test func checkConfigExplainsTheResolvedValue() throws {
        let directory = try TemporaryDirectory()
        let backend = directory.path + "/backend.toml"
        try "[auth]\napi_keys = [\"backend-key-0123456789\"]\n".write(toFile: backend, atomically: true, encoding: .utf8)
        let off = try runCommand(GatewayProcess.executable, ["check-config", backend])
        #expect(off.status == 0, "\(off.output)")
        #expect(off.output.contains("auth.standalone = \"auto\": off, since auth.api_keys is set"), "\(off.output)")

        let alone = directory.path + "/alone.toml"
        try "[log]\nlevel = \"info\"\n".write(toFile: alone, atomically: true, encoding: .utf8)
        let on = try runCommand(GatewayProcess.executable, ["check-config", alone])
        #expect(on.output.contains("auth.standalone = \"auto\": on, since auth.api_keys is empty"), "\(on.output)")
    }
}
