import Foundation
import TestSupport
import JSON

/// A Python test server from `Fixtures/` run as a child process. It prints `PORT <n>` when ready,
/// logs each request as one JSON line to ``logFile``, and exits when its stdin closes (``stop()``
/// or the test process ending), so no server outlives the tests.
final class FixtureServer: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    let port: Int
    let directory: String
    let logFile: String
    private let process: Process
    private let stdin: Pipe

    /// Starts `script` with `arguments` (`{log}` and `{dir}` are replaced by the log file and a fresh
    /// temporary directory) and waits up to 10 s for its port.
    init(script: String, arguments: [String], prepare: (String) throws -> Void = { _ in }) throws {
        directory = NSTemporaryDirectory() + "push-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        logFile = directory + "/requests.jsonl"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        try prepare(directory)
        let directory = self.directory, logFile = self.logFile
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.fixtures.appendingPathComponent(script).path]
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

    /// Every request logged so far, in arrival order. Only complete lines count: the server may be writing the
    /// next one while we read (a torn last line is simply not there yet).
    func records() throws -> [JSONValue] {
        let text = try String(contentsOfFile: logFile, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()   // after the last newline: empty, or a line still being written
        return try lines.filter { !$0.isEmpty }.map { try JSONValue.parse(Array($0.utf8)) }
    }

    /// Logged requests whose `path` ends with `suffix`.
    func records(pathSuffix suffix: String) throws -> [JSONValue] {
        try records().filter { $0.string("path")?.hasSuffix(suffix) == true }
    }

    func stop() {
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a command line tool (e.g. `openssl`) and fails on a non-zero exit.
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

extension JSONValue {
    /// `self[name]` as a string, for objects.
    func string(_ name: String) -> String? { object(name)?.stringValue }

    /// Member `name` of an object.
    func object(_ name: String) -> JSONValue? {
        if case .object(let members) = self { return members[name] }
        return nil
    }
}

/// A clock tests move by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: Int64

    init(_ seconds: Int64) { self.seconds = seconds }

    var now: Int64 { lock.withLock { seconds } }
    func advance(by delta: Int64) { lock.withLock { seconds += delta } }
    var function: @Sendable () -> Int64 { { [self] in now } }
}
