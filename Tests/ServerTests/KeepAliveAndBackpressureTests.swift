@testable import GatewayRuntime
import HTTP1
@testable import Server
import Synchronization
import Testing
import WebSocketCodec

/// Sends `count` messages of `size` bytes whenever a client says "flood", to make a slow consumer.
final class FloodApplication: WebSocketApplication, WebSocketHandler, @unchecked Sendable {
    // @unchecked: only the immutable sizes are stored; the counter is atomic.
    let size: Int
    let count: Int
    let closes = Mutex<[UInt16]>([])
    init(size: Int, count: Int) { self.size = size; self.count = count }
    func upgrade(_ head: HTTPRequestHead) -> UpgradeDecision { .accept(self) }
    func webSocketDidOpen(_ socket: WebSocket) {}
    func webSocket(_ socket: WebSocket, didReceive opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        let blob = [UInt8](repeating: 0x41, count: size)
        for _ in 0..<count { socket.send(binary: blob) }
    }
    func webSocketDidClose(_ socket: WebSocket, code: UInt16) { closes.withLock { $0.append(code) } }
}

@Suite struct KeepAliveAndBackpressureTests {
    @Test func idleClientsArePingedAndDroppedWhenTheyDoNotAnswer() throws {
        let server = try TestServer {
            $0.webSocket.pingIntervalMs = 100
            $0.webSocket.pongTimeoutMs = 100
        }
        let answering = try TestWebSocketClient(port: server.port)
        #expect(try answering.receive() == .ping([]))
        answering.sendFrame(.pong, [])
        #expect(try answering.receive() == .ping([]))   // still alive, pinged again after the next interval

        let silent = try TestWebSocketClient(port: server.port)
        #expect(try silent.receive() == .ping([]))
        #expect(try silent.receive() == nil)              // dropped: EOF without a pong
    }

    @Test func aSlowConsumerIsClosedWithTryAgainLaterInsteadOfGrowingMemory() throws {
        let app = FloodApplication(size: 256 * 1024, count: 64)   // 16 MiB at once
        let server = try TestServer({ $0.webSocket.maxOutboundBytes = 1 << 20; $0.webSocket.compression.enabled = false }, application: app)
        let ws = try TestWebSocketClient(port: server.port)
        ws.send(text: "flood")
        // Read everything that was queued before the limit; the last frame must be close 1013.
        var lastEvent: TestWebSocketClient.Received?
        while let event = try ws.receive() {
            lastEvent = event
            if case .close = event { break }
        }
        #expect(lastEvent == .close(1013, "slow consumer"))
        let client = try RawClient(port: server.port)
        client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let metrics = String(decoding: try client.readResponse().body, as: UTF8.self)
        #expect(metrics.contains("switchboard_slow_consumer_closes_total 1"))
    }
}
