import Foundation
@testable import GatewayRuntime
import Glibc
@testable import Server
import Testing

/// The operator's view of the real executable: one instance per port and database, signals (drain, TLS reload),
/// exit statuses, version and build info, request ids and refusal log lines.
@Suite struct OperationsTests {
    static let switchboard = GatewayProcess.executable

    @Test(.timeLimit(.minutes(1))) func aSecondInstanceOnTheSamePortIsRefused() throws {
        let directory = try TemporaryDirectory()
        let (first, port) = try GatewayProcess.launch(directory: directory)
        defer { kill(first.processIdentifier, SIGKILL) }
        let other = try TemporaryDirectory()
        let second = try ServeProcess(["serve", "--listen", "127.0.0.1:\(port)", "--storage-path", other.path + "/b.db"], directory: other)
        #expect(second.exitStatus() == 1)
        #expect(second.stderr.contains("127.0.0.1:\(port) is already in use"))
        // Refused before touching its own database, and the first instance still serves.
        #expect(!FileManager.default.fileExists(atPath: other.path + "/b.db"))
        #expect(try GatewayHTTP.request(port: port, "GET", "/healthz", key: nil).status == 200)
    }

    @Test(.timeLimit(.minutes(1))) func aSecondInstanceOnTheSameDatabaseIsRefused() throws {
        let directory = try TemporaryDirectory()
        let (first, port) = try GatewayProcess.launch(directory: directory)
        defer { kill(first.processIdentifier, SIGKILL) }
        let freePort = try GatewayProcess.freePort()
        let second = try ServeProcess(["serve", "--listen", "127.0.0.1:\(freePort)", "--storage-path", directory.path + "/gateway.db"],
                                      directory: directory)
        #expect(second.exitStatus() == 1)
        #expect(second.stderr.contains("another switchboard process (pid \(first.processIdentifier)) is using the database"))
        #expect(try GatewayHTTP.request(port: port, "GET", "/healthz", key: nil).status == 200)
    }

    @Test(.timeLimit(.minutes(1))) func drainingAnswers503OnHealthAndReadinessUntilClientsAreGone() throws {
        let directory = try TemporaryDirectory()
        let port = try GatewayProcess.freePort()
        let config = directory.path + "/drain.toml"
        try """
            [server]
            listen = "127.0.0.1:\(port)"
            event_loops = 1
            drain_timeout_ms = 30000
            [storage]
            path = "\(directory.path)/drain.db"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let server = try ServeProcess(["serve", "--config", config, "--echo"], directory: directory)
        try server.waitUntilServing(port: port)
        #expect(try GatewayHTTP.request(port: port, "GET", "/readyz", key: nil).status == 200)
        // A WebSocket client that never answers the server's close keeps the drain going.
        let client = try RawClient(port: port)
        client.send("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        #expect(try client.readResponse().head.status == 101)
        kill(server.pid, SIGTERM)
        #expect(ServeProcess.eventually { (try? GatewayHTTP.request(port: port, "GET", "/healthz", key: nil))?.status == 503 })
        let ready = try GatewayHTTP.request(port: port, "GET", "/readyz", key: nil)
        #expect(ready.status == 503)
        #expect(ready.json["status"] as? String == "draining")
        #expect(server.process.isRunning)
        withExtendedLifetime(client) {}
        Glibc.shutdown(client.fd, Int32(SHUT_RDWR))   // the last client leaves: the drain ends well before its timeout
        #expect(server.exitStatus(within: 10) == 0)
    }

    @Test(.timeLimit(.minutes(1))) func sighupReloadsTheTLSCertificateAndKeepsItWhenTheNewOneIsBad() throws {
        let directory = try TemporaryDirectory()
        let (cert, key) = (directory.path + "/tls.crt", directory.path + "/tls.key")
        try Self.makeCertificate(commonName: "first", cert: cert, key: key)
        let port = try GatewayProcess.freePort()
        // TLS only: --listen "" turns the plain listener off.
        let server = try ServeProcess(["serve", "--listen", "", "--tls-listen", "127.0.0.1:\(port)", "--tls-cert", cert, "--tls-key", key,
                                       "--storage-path", directory.path + "/tls.db"], directory: directory)
        #expect(ServeProcess.eventually { Self.servedCommonName(port: port) == "first" }, "\(server.stderr)")
        #expect(ServeProcess.eventually { server.stderr.contains("ready: SIGTERM") })   // SIGHUP is handled from here on

        try Self.makeCertificate(commonName: "second", cert: cert, key: key)
        kill(server.pid, SIGHUP)
        #expect(ServeProcess.eventually { Self.servedCommonName(port: port) == "second" })
        #expect(server.stderr.contains("reloaded the TLS certificate and key"))

        try "not a certificate\n".write(toFile: cert, atomically: true, encoding: .utf8)
        kill(server.pid, SIGHUP)
        #expect(ServeProcess.eventually { server.stderr.contains("TLS reload failed, keeping the current certificate") })
        #expect(Self.servedCommonName(port: port) == "second")
        #expect(server.process.isRunning)
        kill(server.pid, SIGTERM)
        #expect(server.exitStatus() == 0)
    }

    @Test(.timeLimit(.minutes(1))) func echoModeLeavesNoDatabaseInTheWorkingDirectory() throws {
        let directory = try TemporaryDirectory()
        let port = try GatewayProcess.freePort()
        let server = try ServeProcess(["serve", "--echo", "--listen", "127.0.0.1:\(port)"], directory: directory)
        try server.waitUntilServing(port: port)
        kill(server.pid, SIGTERM)
        #expect(server.exitStatus() == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix("stderr-") }
        #expect(left.isEmpty)
        #expect(server.stderr.contains("(temporary, echo mode)"))
    }

    @Test func versionNamesTheBuildAndTheLibraries() throws {
        for arguments in [["version"], ["--version"]] {
            let (status, output) = try runCommand(Self.switchboard, arguments)
            #expect(status == 0)
            for prefix in ["switchboard 0.", "commit: ", "built: ", "openssl: OpenSSL 3", "zlib: 1.", "sqlite: 3.", "libcurl: "] {
                #expect(output.contains(prefix), "\(arguments): \(output)")
            }
        }
    }

    @Test func badFlagsAndBadConfigurationsExitWithStatus2() throws {
        let directory = try TemporaryDirectory()
        #expect(try runCommand(Self.switchboard, ["serve", "--no-such-flag"]).status == 2)
        let badListen = try runCommand(Self.switchboard, ["serve", "--listen", "nonsense"])
        #expect(badListen.status == 2)
        #expect(badListen.output.contains("--listen"))
        let config = directory.path + "/bad.toml"
        try """
            [server]
            tls_listen = "127.0.0.1:0"
            tls_cert = "\(directory.path)/missing.crt"
            tls_key = "\(directory.path)/missing.key"
            [gateway]
            approval_webhook_url = "ftp://example.com/x"
            webhook_secret = "whsec_c2VjcmV0"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let check = try runCommand(Self.switchboard, ["check-config", config])
        #expect(check.status == 2)
        #expect(check.output.contains("server.tls_cert: cannot read \(directory.path)/missing.crt"))
        #expect(check.output.contains("server.tls_key: cannot read"))
        #expect(check.output.contains("gateway.approval_webhook_url: expected an http:// or https:// URL"))
        #expect(check.output.contains("gateway.webhook_secret: the webhook secret is shorter than 16 bytes"))
        let serve = try runCommand(Self.switchboard, ["serve", "--config", config])
        #expect(serve.status == 2)
        #expect(serve.output.contains("server.tls_cert: cannot read"))
        let unreachable = directory.path + "/unreachable.toml"
        try "[server]\nlisten = \"192.0.2.1:7420\"\n".write(toFile: unreachable, atomically: true, encoding: .utf8)
        let address = try runCommand(Self.switchboard, ["check-config", unreachable])
        #expect(address.status == 2)
        #expect(address.output.contains("server.listen: cannot listen on 192.0.2.1:7420"))
    }

    @Test(.timeLimit(.minutes(1))) func refusalsAreLoggedWithReasonAndPeerButNeverTheToken() throws {
        let directory = try TemporaryDirectory()
        let port = try GatewayProcess.freePort()
        let config = directory.path + "/keys.toml"
        try "[auth]\napi_keys = [\"right-key-0123456789\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let server = try ServeProcess(["serve", "--config", config, "--listen", "127.0.0.1:\(port)", "--storage-path", directory.path + "/r.db",
                                       "--log-format", "json"], directory: directory)
        try server.waitUntilServing(port: port)
        let token = GatewayTestServer.token(user: "ann", device: "phone", secret: "not-the-servers-secret-0123456789")
        let client = try RawClient(port: port)
        client.send("GET /v1/ws?token=\(token) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nX-Request-Id: req-42\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.head.status == 401)
        #expect(response.head.headers["X-Request-Id"] == "req-42")
        #expect(ServeProcess.eventually { server.stderr.contains("upgrade refused") })
        let line = try #require(server.stderr.split(separator: "\n").first { $0.contains("upgrade refused") })
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(fields["peer"] as? String == "127.0.0.1:\(Self.localPort(of: client.fd))")
        #expect(fields["status"] as? String == "401")
        #expect(fields["request_id"] as? String == "req-42")
        #expect((fields["reason"] as? String)?.isEmpty == false)
        #expect(!server.stderr.contains(token))
        // A token sent in the `auth` message after the upgrade is logged the same way when it fails.
        let inBand = try GatewayTestClient(port: port, path: "/v1/ws")
        inBand.send(text: #"{"type":"auth","id":"a1","token":"\#(token)"}"#)
        #expect(try inBand.closeCode() == 4003)
        #expect(ServeProcess.eventually { server.stderr.contains("authentication failed") })
        #expect(!server.stderr.contains(token))
        // A server API call with a wrong key is logged the same way, without the key.
        let api = try GatewayHTTP.request(port: port, "POST", "/v1/sessions", #"{"userId":"ann"}"#, key: "wrong-key-0123456789")
        #expect(api.status == 401)
        #expect(ServeProcess.eventually { server.stderr.contains("API request refused") })
        #expect(!server.stderr.contains("wrong-key-0123456789"))
        // Every start-up line is JSON too, and names the version and the storage path.
        let startup = server.stderr.split(separator: "\n").prefix(4).joined(separator: "\n")
        #expect(startup.contains("switchboard 0.") && startup.contains(directory.path + "/r.db"))
        // A response without a request id gets a fresh one.
        let plain = try RawClient(port: port)
        plain.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect((try plain.readResponse().head.headers["X-Request-Id"]?.count ?? 0) == 16)
        let metrics = try RawClient(port: port)
        metrics.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(String(decoding: try metrics.readResponse().body, as: UTF8.self).contains("switchboard_build_info{version=\"0."))
    }

    static func localPort(of fd: Int32) -> UInt16 {
        var addr = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: addr.sin_port)
    }

    static func makeCertificate(commonName: String, cert: String, key: String) throws {
        let result = try runCommand("/usr/bin/env", ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                                     "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=\(commonName)"])
        guard result.status == 0 else { throw TestFailure("openssl req: \(result.output)") }
    }

    /// The CN of the certificate a TLS server on `port` presents, via `openssl s_client`; nil when none.
    static func servedCommonName(port: UInt16) -> String? {
        guard let result = try? runCommand("/bin/sh", ["-c", "openssl s_client -connect 127.0.0.1:\(port) </dev/null 2>/dev/null | openssl x509 -noout -subject"]),
              result.status == 0, let range = result.output.range(of: "CN = ") ?? result.output.range(of: "CN=") else { return nil }
        return String(result.output[range.upperBound...].prefix { !$0.isNewline && $0 != "," })
    }
}
