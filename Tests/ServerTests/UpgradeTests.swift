@testable import GatewayRuntime
import HTTP1
@testable import Server
import Testing

@Suite struct UpgradeTests {
    static let valid = "GET /chat HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"

    @Test func aValidUpgradeGets101WithTheAcceptKey() throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        client.send(Self.valid + "\r\n")
        let response = try client.readResponse()
        #expect(response.head.status == 101)
        #expect(response.head.headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(response.head.headers["Sec-WebSocket-Extensions"] == nil)
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n", 400, "missing_key"),
        ("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: AAAA\r\nSec-WebSocket-Version: 13\r\n\r\n", 400, "invalid_key"),
        ("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n", 426, "unsupported_version"),
        ("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 400, "missing_connection_upgrade"),
        ("GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 400, "missing_host"),
    ])
    func badUpgradesAreRefusedWithAReason(request: String, status: Int, code: String) throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        client.send(request)
        let response = try client.readResponse()
        #expect(response.head.status == status)
        #expect(String(decoding: response.body, as: UTF8.self).contains("\"code\":\"\(code)\""))
        if status == 426 { #expect(response.head.headers["Sec-WebSocket-Version"] == "13") }
        #expect(client.isClosedByPeer())
    }

    @Test func originsOutsideTheAllowListGet403() throws {
        let server = try TestServer { $0.webSocket.allowedOrigins = ["https://app.example"] }
        let refused = try RawClient(port: server.port)
        refused.send(Self.valid + "Origin: https://evil.example\r\n\r\n")
        #expect(try refused.readResponse().head.status == 403)
        let allowed = try RawClient(port: server.port)
        allowed.send(Self.valid + "Origin: https://app.example\r\n\r\n")
        #expect(try allowed.readResponse().head.status == 101)
    }

    @Test func theFirstSupportedSubprotocolIsSelected() throws {
        let server = try TestServer { $0.webSocket.subprotocols = ["switchboard.v1"] }
        let client = try RawClient(port: server.port)
        client.send(Self.valid + "Sec-WebSocket-Protocol: other, switchboard.v1\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.head.status == 101)
        #expect(response.head.headers["Sec-WebSocket-Protocol"] == "switchboard.v1")
    }

    @Test func upgradesWithoutAnEndpointGet404() throws {
        let server = try TestServer(application: nil)
        let client = try RawClient(port: server.port)
        client.send(Self.valid + "\r\n")
        #expect(try client.readResponse().head.status == 404)
    }
}
