@testable import GatewayRuntime
import HTTP1
@testable import Server
import Testing

@Suite struct HTTPEndpointTests {
    @Test func healthzAnswersOKAndKeepsTheConnectionAlive() throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        for _ in 0..<2 {
            client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.head.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"status":"ok"}"#)
        }
    }

    /// `serve` listens before its signal handlers exist; /readyz says "starting" until the process marks it ready,
    /// while /healthz already answers (the process is alive).
    @Test func readyzSaysStartingUntilTheServerIsMarkedReady() throws {
        let server = try TestServer(readyWhenStarted: false)
        let client = try RawClient(port: server.port)
        client.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
        let starting = try client.readResponse()
        #expect(starting.head.status == 503)
        #expect(String(decoding: starting.body, as: UTF8.self) == #"{"status":"starting"}"#)
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().head.status == 200)
        server.server.markReady()
        client.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
        let ready = try client.readResponse()
        #expect(ready.head.status == 200)
        #expect(String(decoding: ready.body, as: UTF8.self) == #"{"status":"ready"}"#)
    }

    @Test func metricsAreInPrometheusTextFormat() throws {
        let server = try TestServer()
        let ws = try TestWebSocketClient(port: server.port)
        ws.send(text: "hi")
        #expect(try ws.receive() == .text("hi"))
        let client = try RawClient(port: server.port)
        client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.head.status == 200)
        #expect(response.head.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains("# TYPE switchboard_connections_open gauge"))
        #expect(text.contains("switchboard_connections_open 2"))
        #expect(text.contains("switchboard_websocket_upgrades_total 1"))
        #expect(text.contains("switchboard_websocket_messages_received_total 1"))
        #expect(text.contains("switchboard_loop_iterations_total{loop=\"1\"}"))
    }

    @Test func unknownPathsGetA404WithAJSONError() throws {
        let server = try TestServer(application: nil)
        let client = try RawClient(port: server.port)
        client.send("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.head.status == 404)
        #expect(response.head.headers["Content-Type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"not_found""#))
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost x\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505, "http_version_not_supported"),
        ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
        ("GET / HTTP/1.1\r\nHost: x\r\nX: \(String(repeating: "b", count: 17000))\r\n\r\n", 431, "headers_too_large"),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", 413, "body_too_large"),
    ])
    func malformedRequestsGetTheirStatusAndAreClosed(request: String, status: Int, code: String) throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        client.send(request)
        let response = try client.readResponse()
        #expect(response.head.status == status)
        #expect(String(decoding: response.body, as: UTF8.self).contains("\"code\":\"\(code)\""))
        #expect(client.isClosedByPeer())
    }

    @Test func aClientThatSendsNothingIsDroppedAfterTheHandshakeDeadline() throws {
        let server = try TestServer { $0.webSocket.handshakeTimeoutMs = 150 }
        let client = try RawClient(port: server.port)
        client.send("GET / HTTP/1.1\r\n")  // slow-loris: never finishes the request
        let response = try client.readResponse()
        #expect(response.head.status == 408)
        #expect(client.isClosedByPeer())
    }
}
