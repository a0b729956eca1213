import Testing
import WebSocketCodec
@testable import Server

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
