import Foundation

/// Runs the independent implementations the tests cross-check against: the `openssl` CLI and
/// `python3` with only its standard library.
enum ExternalTools {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `command` (looked up on PATH) and returns its standard output.
    /// - Throws: ``Failure`` with stderr when it exits non-zero.
    @discardableResult
    static func run(_ command: String, _ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        // Small outputs only (keys, signatures, tokens): reading one pipe after the other is safe.
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(command) \(arguments.first ?? "") exited \(process.terminationStatus): "
                + String(decoding: errors, as: UTF8.self))
        }
        return [UInt8](output)
    }

    static func openssl(_ arguments: [String], input: [UInt8] = []) throws -> String {
        String(decoding: try run("openssl", arguments, input: input), as: UTF8.self)
    }

    /// Signs `message` with `openssl dgst -sha256 -sign` and returns the DER signature it writes.
    static func opensslSign(_ message: [UInt8], privateKeyFile: String) throws -> [UInt8] {
        try run("openssl", ["dgst", "-sha256", "-sign", privateKeyFile], input: message)
    }

    /// Whether `openssl dgst -sha256 -verify` accepts the DER `signature` of `message`.
    static func opensslVerify(_ message: [UInt8], derSignature: [UInt8], publicKeyFile: String) throws -> Bool {
        let file = NSTemporaryDirectory() + "auth-sig-\(UUID().uuidString).der"
        try Data(derSignature).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        do {
            let output = try openssl(["dgst", "-sha256", "-verify", publicKeyFile, "-signature", file], input: message)
            return output.contains("Verified OK")
        } catch {
            return false
        }
    }

    /// HS256 tokens minted by Python's standard library (`hmac`, `hashlib`, `base64`, `json`),
    /// one per payload, each with header `{"alg":"HS256","typ":"JWT"}`.
    static func pythonHS256Tokens(secret: [UInt8], payloads: [String]) throws -> [String] {
        let script = """
            import base64, hashlib, hmac, json, sys
            secret = bytes.fromhex(sys.argv[1])
            def b64(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
            header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
            for payload in sys.argv[2:]:
                body = b64(payload.encode())
                signing_input = (header + "." + body).encode()
                sig = hmac.new(secret, signing_input, hashlib.sha256).digest()
                print(header + "." + body + "." + b64(sig))
            """
        let hex = secret.map { String(format: "%02x", $0) }.joined()
        let output = try run("python3", ["-c", script, hex] + payloads)
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
