import Foundation
import Glibc
import Testing
@testable import Server

/// The real `switchboard` executable: signals and the command line.
@Suite struct ExecutableTests {
    @Test(.timeLimit(.minutes(1))) func sigtermClosesClientsWith1001AndExits() throws {
        let directory = try TemporaryDirectory()
        let (process, port) = try GatewayCrashTests.launch(directory: directory)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let client = try GatewayTestClient(port: port, path: "/v1/ws?token=\(GatewayTestServer.token(user: "ann", device: "phone"))")
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
        process.executableURL = URL(fileURLWithPath: GatewayCrashTests.executable)
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
