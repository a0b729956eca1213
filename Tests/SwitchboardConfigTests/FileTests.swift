#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import SwitchboardConfig

/// The shipped example file and reading from disk.
@Suite struct FileTests {
    /// `config/switchboard.example.toml`, found from this source file's path.
    static let examplePath: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // FileTests.swift, SwitchboardConfigTests, Tests
        return (parts + ["config", "switchboard.example.toml"]).joined(separator: "/")
    }()

    @Test func exampleFileEqualsTheDefaultsAndSetsEveryKey() throws {
        let config = try SwitchboardConfiguration.load(path: Self.examplePath)
        #expect(config == SwitchboardConfiguration())
        #expect(config.explicitlySetKeys == Set(SwitchboardConfiguration.knownKeys))
    }

    @Test func exampleFileDocumentsEveryKeyWithACommentAbove() throws {
        let text = try ConfigFileReader.read(path: Self.examplePath)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var documented = 0
        for (index, line) in lines.enumerated() where line.contains(" = ") && !line.hasPrefix("#") {
            #expect(index > 0 && lines[index - 1].hasPrefix("# "), "line \(index + 1) has no comment above: \(line)")
            documented += 1
        }
        #expect(documented == SwitchboardConfiguration.knownKeys.count)
    }

    @Test func exampleFileWithEchoDefaultsKeepsItsExplicitLimits() throws {
        var config = try SwitchboardConfiguration.load(path: Self.examplePath)
        config.applyEchoDefaults()
        // Every key is explicit in the example, so echo mode changes nothing.
        #expect(config == SwitchboardConfiguration())
    }

    @Test func loadReportsTheLineOfAnErrorInAFile() throws {
        let path = try TemporaryFile.create("[server]\n\nevent_loops = \"many\"\n")
        defer { TemporaryFile.remove(path) }
        #expect(throws: ConfigError(file: path, line: 3, key: "server.event_loops",
                                    message: "expected an integer between 0 and 256, got \"many\"")) {
            try SwitchboardConfiguration.load(path: path)
        }
    }

    @Test func loadReadsAValidFile() throws {
        let path = try TemporaryFile.create("[log]\nlevel = \"debug\"\n")
        defer { TemporaryFile.remove(path) }
        #expect(try SwitchboardConfiguration.load(path: path).log.level == .debug)
    }

    @Test func missingFileIsAnErrorWithoutLine() throws {
        let path = "/nonexistent-dir-\(getpid())/switchboard.toml"
        do {
            _ = try SwitchboardConfiguration.load(path: path)
            Issue.record("expected an error")
        } catch {
            #expect(error.file == path && error.line == nil && error.key == nil)
            #expect(error.message.hasPrefix("cannot open: "))
        }
    }

    @Test func invalidUTF8NamesItsLine() throws {
        let path = try TemporaryFile.create(bytes: Array("[log]\n# ok\n# bad ".utf8) + [0xC3, 0x28] + Array("\n".utf8))
        defer { TemporaryFile.remove(path) }
        #expect(throws: ConfigError(file: path, line: 3, key: nil, message: "file is not valid UTF-8")) {
            try SwitchboardConfiguration.load(path: path)
        }
    }

    @Test func oversizedFileIsRejected() throws {
        let path = try TemporaryFile.create(String(repeating: "# padding line\n", count: 75_000))
        defer { TemporaryFile.remove(path) }
        do {
            _ = try SwitchboardConfiguration.load(path: path)
            Issue.record("expected an error")
        } catch {
            #expect(error.line == nil && error.message.contains("larger than"))
        }
    }
}

/// Files under /tmp for load tests, written with POSIX calls.
enum TemporaryFile {
    struct WriteFailed: Error {}

    static func create(_ text: String) throws -> String {
        try create(bytes: Array(text.utf8))
    }

    static func create(bytes: [UInt8]) throws -> String {
        var template = Array("/tmp/switchboard-config-test-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw WriteFailed() }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw WriteFailed() }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func remove(_ path: String) {
        unlink(path)
    }
}
