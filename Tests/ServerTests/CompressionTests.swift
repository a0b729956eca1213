@testable import GatewayRuntime
import HTTP1
@testable import Server
import Testing
import WebSocketCodec

@Suite struct CompressionTests {
    @Test func deflateIsNegotiatedAndMessagesRoundTripCompressed() throws {
        let server = try TestServer()
        let ws = try TestWebSocketClient(port: server.port, extensions: "permessage-deflate; client_max_window_bits")
        #expect(ws.extensionsHeader?.hasPrefix("permessage-deflate") == true)
        let text = String(repeating: "switchboard ", count: 5000)
        ws.sendCompressed(.text, Array(text.utf8))
        #expect(try ws.receive() == .text(text))
        ws.send(text: "plain frames still work")
        #expect(try ws.receive() == .text("plain frames still work"))
    }

    @Test func compressionCanBeTurnedOff() throws {
        let server = try TestServer { $0.webSocket.compression.enabled = false }
        let ws = try TestWebSocketClient(port: server.port, extensions: "permessage-deflate")
        #expect(ws.extensionsHeader == nil)
        ws.sendFrame(.text, Array("x".utf8), rsv1: true)   // RSV1 without the extension is a protocol error
        guard case .close(let code, _)? = try ws.receive() else {
            Issue.record("expected a close frame")
            return
        }
        #expect(code == 1002)
    }

    @Test func aDecompressionBombIsClosedWith1009() throws {
        let server = try TestServer { $0.webSocket.maxMessageBytes = 1 << 20 }
        let ws = try TestWebSocketClient(port: server.port, extensions: "permessage-deflate")
        ws.sendCompressed(.binary, [UInt8](repeating: 0, count: 50 << 20))   // ~50 KB on the wire, 50 MiB inflated
        guard case .close(let code, _)? = try ws.receive() else {
            Issue.record("expected a close frame")
            return
        }
        #expect(code == 1009)
    }
}

/// Sends every message it receives to every connected socket (a tiny broadcast), for the shared-compression test.
final class BroadcastApplication: WebSocketApplication, WebSocketHandler, @unchecked Sendable {
    // @unchecked: one event loop in the test, so `sockets` is touched by one thread.
    var sockets: [WebSocket] = []
    func upgrade(_ head: HTTPRequestHead) -> UpgradeDecision { .accept(self) }
    func webSocketDidOpen(_ socket: WebSocket) { sockets.append(socket) }
    func webSocket(_ socket: WebSocket, didReceive opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        for s in sockets { s.send(opcode: opcode, payload: payload) }
    }
    func webSocketDidClose(_ socket: WebSocket, code: UInt16) { sockets.removeAll { $0 === socket } }
}

@Suite struct SharedCompressionTests {
    @Test func aBroadcastWithoutContextTakeoverIsCompressedOncePerLoop() throws {
        let app = BroadcastApplication()
        let server = try TestServer({ $0.eventLoops = 1; $0.webSocket.compression.serverNoContextTakeover = true }, application: app)
        let offer = "permessage-deflate; client_max_window_bits"
        let clients = try (0..<4).map { _ in try TestWebSocketClient(port: server.port, extensions: offer) }
        #expect(clients.allSatisfy { $0.extensionsHeader?.contains("server_no_context_takeover") == true })
        let text = String(repeating: "fan-out ", count: 200)
        clients[0].send(text: text)
        for client in clients { #expect(try client.receive() == .text(text)) }
        clients[1].send(text: text + "!")
        for client in clients { #expect(try client.receive() == .text(text + "!")) }
        let scrape = try RawClient(port: server.port)
        scrape.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let metrics = String(decoding: try scrape.readResponse().body, as: UTF8.self)
        #expect(metrics.contains("switchboard_websocket_compressions_total 2"))
        #expect(metrics.contains("switchboard_websocket_shared_compressions_total 6"))
    }
}
