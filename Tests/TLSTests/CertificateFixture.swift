import Foundation
import Testing

/// A throwaway self-signed EC P-256 certificate (SAN DNS:localhost, IP:127.0.0.1) plus an
/// unrelated key, generated once per test run with the `openssl` CLI into a temp directory.
struct CertificateFixture: Sendable {
    let directory: String
    let certificate: String
    let key: String
    /// A valid key that does not belong to `certificate`.
    let otherKey: String

    /// A path inside the fixture directory that does not exist.
    var missingFile: String { directory + "/does-not-exist.pem" }

    private static let shared = Result<CertificateFixture, any Error> { try generate() }

    /// The shared fixture; throws if generating it failed (e.g. no `openssl` binary).
    static func get() throws -> CertificateFixture { try shared.get() }

    private static func generate() throws -> CertificateFixture {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchboard-tls-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Throwaway means throwaway: remove the keys when the test process exits.
        atexit {
            if let directory = try? CertificateFixture.shared.get().directory {
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
        let fixture = CertificateFixture(
            directory: directory,
            certificate: directory + "/cert.pem",
            key: directory + "/key.pem",
            otherKey: directory + "/other-key.pem")
        try runOpenSSL([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", fixture.key, "-out", fixture.certificate, "-days", "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
        try runOpenSSL([
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", fixture.otherKey,
        ])
        return fixture
    }

    private static func runOpenSSL(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "openssl \(arguments.first ?? "") failed: "
                + String(decoding: stderr, as: UTF8.self))
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
