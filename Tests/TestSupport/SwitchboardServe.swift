import Foundation

/// The real `switchboard serve` as a child process, for tests that need the executable (kill -9, restarts, load).
public enum SwitchboardServe {
    /// The `switchboard` built beside this test binary (the test command builds every product first), so sanitized
    /// builds in their own scratch directory (scripts/sanitize) test their own executable.
    public static var executable: String {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBinary.deletingLastPathComponent().appendingPathComponent("switchboard").path
    }

    /// Writes a minimal configuration (loopback `port`, one event loop, no drain wait, HS256 `secret`, one `apiKey`,
    /// the database `directory/gateway.db`) and starts `serve` with it. Does not wait: callers poll `/readyz`
    /// (only then are the signal handlers in place; a SIGTERM earlier kills outright).
    /// `trustedProxies` becomes `server.trusted_proxies`, `drainTimeoutMs` `server.drain_timeout_ms`; `extraSections`
    /// (whole TOML sections other than those above) is appended. `standalone` is `auth.standalone` as written in the
    /// file: `true` by default, since tests register devices beside the API key (`"auto"` would turn that off).
    public static func start(directory: String, port: UInt16, secret: String, apiKey: String,
                             trustedProxies: [String] = [], drainTimeoutMs: Int = 0, standalone: String = "true",
                             extraSections: String = "") throws -> Process {
        let config = """
            [server]
            listen = "127.0.0.1:\(port)"
            trusted_proxies = [\(trustedProxies.map { "\"\($0)\"" }.joined(separator: ", "))]
            event_loops = 1
            drain_timeout_ms = \(drainTimeoutMs)
            [log]
            level = "critical"
            [auth]
            hs256_secret = "\(secret)"
            api_keys = ["\(apiKey)"]
            standalone = \(standalone)
            [storage]
            path = "\(directory)/gateway.db"
            \(extraSections)
            """
        let configPath = directory + "/switchboard-\(port).toml"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--config", configPath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
