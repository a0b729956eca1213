import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// wss:// with a real TLS client: Python's `websockets` over `ssl`, verifying a throwaway certificate,
/// with permessage-deflate (websockets offers it by default).
@Suite struct TLSEndToEndTests {
    static func makeCertificate() throws -> (cert: String, key: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let cert = dir + "/cert.pem", key = dir + "/key.pem"
        let status = try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                                   "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                                                   "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]).status
        guard status == 0 else { throw TestFailure("openssl req failed") }
        return (cert, key)
    }

    @discardableResult
    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static let client = #"""
import ssl, sys
from websockets.sync.client import connect
ctx = ssl.create_default_context(cafile=sys.argv[2])
with connect(f"wss://localhost:{sys.argv[1]}/echo", ssl=ctx, open_timeout=5) as ws:
    print("ext=" + str(ws.response.headers.get("Sec-WebSocket-Extensions")))
    print("tls=" + ws.socket.version())
    ws.send("hello over tls")
    assert ws.recv(timeout=5) == "hello over tls"
    big = ("switchboard " * 20000).encode()
    ws.send(big)
    assert ws.recv(timeout=5) == big
    print("ok")
"""#

    @Test func pythonWebsocketsClientEchoesOverTLSWithDeflate() throws {
        let (cert, key) = try Self.makeCertificate()
        let server = try TestServer {
            $0.tlsListen = .init(host: "127.0.0.1", port: 0)
            $0.tlsCertificateFile = cert
            $0.tlsPrivateKeyFile = key
            $0.webSocket.maxMessageBytes = 1 << 20
            $0.webSocket.maxFrameBytes = 1 << 20
        }
        let result = try Self.run("/usr/bin/env", ["python3", "-c", Self.client, String(server.tlsPort), cert])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ext=permessage-deflate"))
        #expect(result.output.contains("tls=TLSv1.3"))
        #expect(result.output.contains("ok"))
    }

    @Test func plainTextOnTheTLSPortFailsTheHandshakeWithoutHarm() throws {
        let (cert, key) = try Self.makeCertificate()
        let server = try TestServer {
            $0.tlsListen = .init(host: "127.0.0.1", port: 0)
            $0.tlsCertificateFile = cert
            $0.tlsPrivateKeyFile = key
        }
        let client = try RawClient(port: server.tlsPort)
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.isClosedByPeer())
        let healthy = try RawClient(port: server.port)
        healthy.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try healthy.readResponse().head.status == 200)
    }

    @Test func aMissingCertificateIsAClearStartupError() throws {
        var settings = ServerSettings()
        settings.tlsListen = .init(host: "127.0.0.1", port: 0)
        settings.tlsCertificateFile = "/nonexistent/cert.pem"
        settings.tlsPrivateKeyFile = "/nonexistent/key.pem"
        #expect(throws: ServerError.self) { try Server(settings: settings, application: nil, logger: .init(label: "t")) }
    }
}
