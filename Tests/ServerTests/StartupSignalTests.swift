import Foundation
import Glibc
import Testing

/// A SIGTERM that arrives while `serve` is still starting is neither lost nor a hard kill: it waits until the
/// handlers exist and then drains like any other (exit 0). Before the signals were blocked from the start, such a
/// signal either killed the process (default action) or, once ignored, vanished and left the server running.
@Suite struct StartupSignalTests {
    @Test(.timeLimit(.minutes(1))) func aSIGTERMDuringStartUpDrainsOnceTheHandlersExist() throws {
        for attempt in 0..<3 {
            let directory = try TemporaryDirectory()
            let port = try GatewayProcess.freePort()
            let server = try ServeProcess(["serve", "--listen", "127.0.0.1:\(port)", "--storage-path", directory.path + "/s\(attempt).db",
                                           "--log-level", "info"], directory: directory)
            // The first start-up line is written after the signals are blocked and well before they are handled.
            #expect(ServeProcess.eventually { server.stderr.contains("configuration:") })
            kill(server.pid, SIGTERM)
            #expect(server.exitStatus(within: 20) == 0, "attempt \(attempt): \(server.stderr)")
            #expect(server.process.terminationReason == .exit)
        }
    }
}
