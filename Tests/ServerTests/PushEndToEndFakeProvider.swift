import Foundation
import TestSupport

/// One of the Python provider fakes from `Tests/PushTests/Fixtures/` run as a child process (they are shared with
/// PushTests and read from there by path). A fake prints `PORT <n>` when listening, appends one JSON line per request
/// to its log and exits when its stdin closes, so it never outlives the test process.
///
/// `@unchecked Sendable`: immutable after init; the log file is only read.
final class PushEndToEndFakeProvider: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("PushTests/Fixtures")

    let port: Int
    /// A fresh temporary directory holding the log and whatever `prepare` wrote (certificates, keys).
    let directory: String
    let logFile: String
    private let process: Process
    private let stdin: Pipe

    /// Runs `python3 [pythonPrefix…] <script> <arguments…>`; `{log}` and `{dir}` in the arguments become the log file and
    /// the temporary directory. `prepare` runs first with the directory. Waits up to 10 s for the port.
    init(script: String, arguments: [String], pythonPrefix: [String] = [], prepare: (String) throws -> Void = { _ in }) throws {
        directory = NSTemporaryDirectory() + "push-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        logFile = directory + "/requests.jsonl"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        try prepare(directory)
        let (directory, logFile) = (self.directory, self.logFile)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + pythonPrefix + [Self.fixtures.appendingPathComponent(script).path]
            + arguments.map { $0.replacingOccurrences(of: "{log}", with: logFile).replacingOccurrences(of: "{dir}", with: directory) }
        stdin = Pipe()
        let stdout = Pipe()
        let stderrFile = directory + "/stderr.log"
        _ = FileManager.default.createFile(atPath: stderrFile, contents: nil)
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle(forWritingAtPath: stderrFile)
        try process.run()
        var output = Data()
        let deadline = Date().addingTimeInterval(10)
        while !output.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty || Date() > deadline { throw FixtureStartFailure(script: script, stderrFile: stderrFile) }
            output.append(chunk)
        }
        let line = String(decoding: output, as: UTF8.self)
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5).prefix { $0.isNumber }) else {
            throw Failure(description: "\(script) printed \(line)")
        }
        self.port = port
    }

    /// Every request logged so far, in arrival order (JSONSerialization objects).
    func records() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: logFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The request body of a record parsed as a JSON object.
    static func body(_ record: [String: Any]) -> [String: Any]? {
        guard let text = record["body"] as? String else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// Whether the reference `standardwebhooks` package verified a `webhook_server.py` record's signature (false when
    /// it is not installed: it is in scripts/requirements-test.txt, which `scripts/test-venv` installs).
    static func referenceLibraryVerified(_ record: [String: Any]) -> Bool {
        record["library_valid"] as? Bool == true
    }

    /// A lowercase request header of a record.
    static func header(_ record: [String: Any], _ name: String) -> String? {
        (record["headers"] as? [String: Any])?[name] as? String
    }

    func stop() {
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a command line tool (`openssl`) and fails on a non-zero exit.
    static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "\(arguments.joined(separator: " ")) failed") }
    }
}
