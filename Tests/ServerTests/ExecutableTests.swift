import Foundation
@testable import GatewayRuntime
import Glibc
@testable import Server
import Testing
import TestSupport

/// The real `switchboard` executable: signals and the command line.
@Suite struct ExecutableTests {
    @Test(.timeLimit(.minutes(1))) func sigtermClosesClientsWith1001AndExits() throws {
        let directory = try TemporaryDirectory()
        let (process, port) = try GatewayProcess.launch(directory: directory)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let client = try GatewayTestClient(
            port: port, path: "/v1/ws?token=\(GatewayTestServer.token(user: "ann", device: "phone"))")
        _ = try client.next("welcome")
        kill(process.processIdentifier, SIGTERM)
        #expect(try client.closeCode() == 1001)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test func checkConfigNamesTheFileLineAndKey() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/bad.toml"
        try "[websocket]\nmax_message_bytes = \"big\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GatewayProcess.executable)
        process.arguments = ["check-config", path]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(output.contains("bad.toml:2: websocket.max_message_bytes:"))
    }
}

/// Running out of file descriptors pauses accepting instead of spinning or crashing.
@Suite struct DescriptorExhaustionTests {
    /// CPU seconds (user + system) the process has used, from /proc.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based) → 11 and 12 here.
        return (Double(fields[11]) ?? 0) / 100 + (Double(fields[12]) ?? 0) / 100
    }

    @Test(.timeLimit(.minutes(1))) func emfileBacksOffAndTheServerRecovers() throws {
        let directory = try TemporaryDirectory()
        let port = try GatewayProcess.freePort()
        let config = directory.path + "/limits.toml"
        try """
        [server]
        listen = "127.0.0.1:\(port)"
        event_loops = 1
        [log]
        level = "critical"
        [storage]
        path = "\(directory.path)/db"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c", "ulimit -n 64 && exec \"$0\" serve --config \"$1\"", GatewayProcess.executable, config
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // /readyz, not /healthz: the signal handlers are installed after the listeners, and libdispatch dies
        // (SIGILL) creating them while every descriptor is taken — wait until start-up is complete.
        let up = eventually(within: 10, every: 0.02) {
            (try? GatewayHTTP.request(port: port, "GET", "/readyz", key: nil))?.status == 200
        }
        try #require(up)

        // More connections than the server has descriptors: the kernel queues them, accept4 fails with EMFILE.
        var clients: [RawClient] = []
        for _ in 0..<100 { clients.append(try RawClient(port: port, timeoutSeconds: 1)) }
        usleep(300_000)
        let before = Self.cpuSeconds(process.processIdentifier)
        usleep(1_000_000)
        let spent = Self.cpuSeconds(process.processIdentifier) - before
        #expect(process.isRunning)
        #expect(spent < 0.5, "the loop must back off, not spin on EMFILE (used \(spent) s of CPU in 1 s)")

        clients.removeAll()  // close them: descriptors come back
        let healthy = eventually(within: 5, every: 0.05) {
            (try? GatewayHTTP.request(port: port, "GET", "/healthz", key: nil))?.status == 200
        }
        #expect(healthy)
        let scrape = try RawClient(port: port)
        scrape.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let metrics = String(decoding: try scrape.readResponse().body, as: UTF8.self)
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("switchboard_accept_errors_total ") }
        #expect((line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0) > 0)
    }
}
