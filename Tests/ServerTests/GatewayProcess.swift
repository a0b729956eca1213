import Foundation
import Glibc

/// The real `switchboard` executable as a child process (for tests that kill it with SIGKILL and restart it on the
/// same database).
enum GatewayProcess {
    /// The `switchboard` built beside this test binary (the test command builds every product first), so sanitized
    /// builds in their own scratch directory (scripts/sanitize) test their own executable.
    static var executable: String {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBinary.deletingLastPathComponent().appendingPathComponent("switchboard").path
    }

    /// A loopback port that was free a moment ago.
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw TestFailure("cannot find a free port: errno \(errno)") }
        return UInt16(bigEndian: addr.sin_port)
    }

    /// Starts `switchboard serve` on `port` (default: a fresh one) with the database in `directory`; returns once
    /// /healthz answers. Passing the port of a killed instance restarts "the same server" for reconnecting clients.
    static func launch(directory: TemporaryDirectory, port fixedPort: UInt16? = nil) throws -> (process: Process, port: UInt16) {
        let port = try fixedPort ?? freePort()
        let config = """
            [server]
            listen = "127.0.0.1:\(port)"
            event_loops = 1
            drain_timeout_ms = 0
            [log]
            level = "critical"
            [auth]
            hs256_secret = "\(GatewayTestServer.secret)"
            api_keys = ["\(GatewayTestServer.apiKey)"]
            [storage]
            path = "\(directory.path)/gateway.db"
            """
        let configPath = directory.path + "/switchboard-\(port).toml"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--config", configPath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            // /readyz, not /healthz: only then are the signal handlers in place (a SIGTERM earlier waits pending until they are).
            if let ready = try? GatewayHTTP.request(port: port, "GET", "/readyz", key: nil), ready.status == 200 { return (process, port) }
            guard process.isRunning else { throw TestFailure("switchboard exited with \(process.terminationStatus)") }
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGKILL)
        throw TestFailure("switchboard did not answer /readyz within 5 s")
    }
}
