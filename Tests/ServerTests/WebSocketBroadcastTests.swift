import HTTP1
@testable import Server
import Testing
import WebSocketCodec

/// On "fan N": N messages to every socket as `WebSocketBroadcast`s (frame built once, queued by reference), each
/// followed by a message of the socket's own, all in one loop iteration. On "flood": one large broadcast `count`
/// times to the sender.
final class SharedFrameApplication: WebSocketApplication, WebSocketHandler, @unchecked Sendable {
    // @unchecked: one event loop in the tests, so `sockets` is touched by one thread.
    var sockets: [WebSocket] = []
    func upgrade(_ head: HTTPRequestHead) -> UpgradeDecision { .accept(self) }
    func webSocketDidOpen(_ socket: WebSocket) { sockets.append(socket) }
    func webSocket(_ socket: WebSocket, didReceive opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        let words = String(decoding: payload, as: UTF8.self).split(separator: " ")
        switch words.first {
        case "fan":
            for i in 0..<Int(words[1])! {
                let message = WebSocketBroadcast(payload: Array(SharedFrameApplication.event(i).utf8))
                for (n, s) in sockets.enumerated() {
                    s.send(message)
                    s.send(text: "own \(n) \(i)")
                }
            }
        case "flood":
            let message = WebSocketBroadcast(opcode: .binary, payload: [UInt8](repeating: 0x41, count: 256 * 1024))
            for _ in 0..<Int(words[1])! { socket.send(message) }
        default:
            break
        }
    }
    func webSocketDidClose(_ socket: WebSocket, code: UInt16) { sockets.removeAll { $0 === socket } }

    /// Long enough to be compressed for a socket that negotiated deflate (the fallback path).
    static func event(_ i: Int) -> String { "{\"event\":\(i),\"padding\":\"" + String(repeating: "x", count: 100 + i) + "\"}" }
}

@Suite struct WebSocketBroadcastTests {
    @Test func broadcastsQueuedInOneIterationReachEverySocketIntactAndInOrder() throws {
        let app = SharedFrameApplication()
        let server = try TestServer({ $0.eventLoops = 1 }, application: app)
        // The last client negotiates deflate: its copy is compressed for it alone instead of shared.
        let clients = [try TestWebSocketClient(port: server.port), try TestWebSocketClient(port: server.port),
                       try TestWebSocketClient(port: server.port, extensions: "permessage-deflate; client_max_window_bits")]
        #expect(clients[2].extensionsHeader?.hasPrefix("permessage-deflate") == true)
        clients[0].send(text: "fan 5")
        for (n, client) in clients.enumerated() {
            for i in 0..<5 {
                #expect(try client.receive() == .text(SharedFrameApplication.event(i)))
                #expect(try client.receive() == .text("own \(n) \(i)"))
            }
        }
        // The sockets are still usable after the shared frames were written out.
        clients[1].send(text: "fan 1")
        for (n, client) in clients.enumerated() {
            #expect(try client.receive() == .text(SharedFrameApplication.event(0)))
            #expect(try client.receive() == .text("own \(n) 0"))
        }
    }

    @Test func aSlowConsumerOfBroadcastsIsClosedAtTheOutboundLimit() throws {
        let app = SharedFrameApplication()
        let server = try TestServer({ $0.eventLoops = 1; $0.webSocket.maxOutboundBytes = 1 << 20; $0.webSocket.compression.enabled = false },
                                    application: app)
        let ws = try TestWebSocketClient(port: server.port)
        ws.send(text: "flood 64")   // 16 MiB queued at once against a 1 MiB limit
        var frames = 0
        var lastEvent: TestWebSocketClient.Received?
        while let event = try ws.receive() {
            lastEvent = event
            if case .close = event { break }
            #expect(event == .binary([UInt8](repeating: 0x41, count: 256 * 1024)))
            frames += 1
        }
        #expect(lastEvent == .close(1013, "slow consumer"))
        #expect(frames >= 1 && frames <= 4)   // what fitted under 1 MiB before the limit
        let client = try RawClient(port: server.port)
        client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let metrics = String(decoding: try client.readResponse().body, as: UTF8.self)
        #expect(metrics.contains("switchboard_slow_consumer_closes_total 1"))
    }
}
