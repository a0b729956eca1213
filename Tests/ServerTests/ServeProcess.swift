import Foundation
import Glibc
import TestSupport

/// The real `switchboard` executable as a child process with its standard error in a file, for tests of the
/// command line, signals and start-up refusals. Killed (SIGKILL) on deinit if still running.
final class ServeProcess {
    let process = Process()
    let stderrFile: String

    /// Starts `switchboard <arguments>` in `directory` (also the working directory).
    init(_ arguments: [String], directory: TemporaryDirectory) throws {
        stderrFile = directory.path + "/stderr-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: stderrFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: GatewayProcess.executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: stderrFile)
        try process.run()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    var pid: Int32 { process.processIdentifier }
    var stderr: String { (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? "" }

    /// Waits until `/healthz` on `port` answers 200 and the process has logged that it handles signals (its `ready:`
    /// line, at log level info or below), or throws when the process exits first or 10 s pass.
    func waitUntilServing(port: UInt16) throws {
        let serving = try TestSupport.eventually(within: 10, every: 0.02) {
            if stderr.contains("ready: SIGTERM"),
                (try? GatewayHTTP.request(port: port, "GET", "/healthz", key: nil))?.status == 200
            {
                return true
            }
            guard process.isRunning else {
                throw TestFailure("switchboard exited with \(process.terminationStatus): \(stderr)")
            }
            return false
        }
        if serving { return }
        throw TestFailure("switchboard did not answer /healthz within 10 s: \(stderr)")
    }

    /// Waits for the process to exit (at most `seconds`) and returns its status, or nil when it is still running.
    func exitStatus(within seconds: Double = 20) -> Int32? {
        TestSupport.eventually(within: seconds, every: 0.02) { !process.isRunning }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Polls `condition` every 20 ms for up to `seconds`.
    static func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        TestSupport.eventually(within: seconds, every: 0.02, condition)
    }
}

/// Runs a command to completion and returns its exit status and combined output.
func runCommand(_ path: String, _ arguments: [String], directory: String? = nil) throws -> (
    status: Int32, output: String
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
