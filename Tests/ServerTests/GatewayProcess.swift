import Foundation
import Glibc
import TestSupport

/// The real `switchboard` executable as a child process (for tests that kill it with SIGKILL and restart it on the
/// same database).
enum GatewayProcess {
    /// The `switchboard` built beside this test binary.
    static var executable: String { SwitchboardServe.executable }

    /// A loopback port that was free a moment ago.
    static func freePort() throws -> UInt16 { try freeLoopbackPort() }

    /// Starts `switchboard serve` on `port` (default: a fresh one) with the database in `directory`; returns once
    /// /healthz answers. Passing the port of a killed instance restarts "the same server" for reconnecting clients.
    /// `trustedProxies`, `drainTimeoutMs`, `standalone` and `extraSections` as in `SwitchboardServe.start`.
    static func launch(
        directory: TemporaryDirectory, port fixedPort: UInt16? = nil, trustedProxies: [String] = [],
        drainTimeoutMs: Int = 0, standalone: String = "true",
        extraSections: String = ""
    ) throws -> (process: Process, port: UInt16) {
        let port = try fixedPort ?? freePort()
        let process = try SwitchboardServe.start(
            directory: directory.path, port: port, secret: GatewayTestServer.secret,
            apiKey: GatewayTestServer.apiKey, trustedProxies: trustedProxies,
            drainTimeoutMs: drainTimeoutMs, standalone: standalone, extraSections: extraSections)
        let ready = try eventually(within: 5, every: 0.02) {
            // /readyz, not /healthz: only then are the signal handlers in place (a SIGTERM earlier waits pending until they are).
            if let ready = try? GatewayHTTP.request(port: port, "GET", "/readyz", key: nil), ready.status == 200 {
                return true
            }
            guard process.isRunning else { throw TestFailure("switchboard exited with \(process.terminationStatus)") }
            return false
        }
        if ready { return (process, port) }
        kill(process.processIdentifier, SIGKILL)
        throw TestFailure("switchboard did not answer /readyz within 5 s")
    }
}
