import Dispatch
@testable import GatewayRuntime
import Glibc
@testable import Server
import Synchronization
import Testing
import WebSocketCodec

@Suite struct EchoTests {
    @Test func echoesTextAndBinaryIncludingFragmentedMessages() throws {
        let server = try TestServer {
            $0.webSocket.maxMessageBytes = 1 << 20
            $0.webSocket.maxFrameBytes = 1 << 20
        }
        let ws = try TestWebSocketClient(port: server.port)
        ws.send(text: "héllo")
        #expect(try ws.receive() == .text("héllo"))
        let blob = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
        ws.sendFrame(.binary, blob)
        #expect(try ws.receive() == .binary(blob))
        ws.sendFrame(.text, Array("frag".utf8), fin: false)
        ws.sendFrame(.ping, [1, 2])                       // control frames may interleave
        ws.sendFrame(.continuation, Array("mented".utf8))
        #expect(try ws.receive() == .pong([1, 2]))
        #expect(try ws.receive() == .text("fragmented"))
    }

    @Test func closeHandshakeEchoesTheCodeAndTheServerClosesTCP() throws {
        let server = try TestServer()
        let ws = try TestWebSocketClient(port: server.port)
        ws.sendFrame(.close, WebSocketFrameEncoder.closePayload(code: 4001, reason: "bye"))
        #expect(try ws.receive() == .close(4001, ""))
        #expect(ws.raw.isClosedByPeer())
    }

    @Test func manyMessagesInOneWriteAllComeBackInOrder() throws {
        let server = try TestServer()
        let ws = try TestWebSocketClient(port: server.port)
        var batch: [UInt8] = []
        for i in 0..<500 {
            batch += WebSocketFrameEncoder.frame(opcode: .text, payload: Array("m\(i)".utf8), maskKey: 0x0102_0304)
        }
        ws.raw.send(batch)
        for i in 0..<500 { #expect(try ws.receive() == .text("m\(i)")) }
    }

    @Test func shutdownSendsGoingAwayToEveryClient() throws {
        let server = try TestServer()
        let a = try TestWebSocketClient(port: server.port)
        let b = try TestWebSocketClient(port: server.port)
        // Answer the close from another thread while shutdown waits for the drain.
        let hits = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        let clients = UncheckedBox([a, b])
        DispatchQueue.global().async {
            for ws in clients.value {
                if case .close(let code, _)? = try? ws.receive(), code == 1001 { hits.withLock { $0 += 1 } }
                ws.sendFrame(.close, WebSocketFrameEncoder.closePayload(code: 1001, reason: ""))
            }
            done.signal()
        }
        server.server.shutdown()
        done.wait()
        #expect(hits.withLock { $0 } == 2)
        #expect(server.server.openConnections == 0)
    }
}

@Suite struct CloseTimeoutTests {
    /// The answer to a close must survive the deadline sweep while the peer is slow to read it: the close timeout
    /// starts when the server enters the closing phase, not at 0 (a regression that Autobahn 9.3.7 caught as UNCLEAN).
    @Test func aCloseAnswerWaitingForASlowReaderIsNotDroppedBeforeTheCloseTimeout() throws {
        let server = try TestServer {
            $0.eventLoops = 1
            $0.webSocket.closeTimeoutMs = 3_000
            $0.webSocket.maxMessageBytes = 16 << 20
            $0.webSocket.maxFrameBytes = 16 << 20
            $0.webSocket.maxOutboundBytes = 64 << 20
            $0.webSocket.compression.enabled = false
        }
        let ws = try TestWebSocketClient(port: server.port)
        let blob = [UInt8](repeating: 0x5A, count: 8 << 20)
        ws.sendFrame(.binary, blob)                       // echoed back: far more than the socket buffers hold
        ws.sendFrame(.close, WebSocketFrameEncoder.closePayload(code: 1000, reason: ""))
        // Several sweeps pass while we do not read, all after the server read our close and queued its answer.
        let metrics = try #require(server.server.loopMetrics.first)
        #expect(ServeProcess.eventually(5) { metrics.controlFramesIn.load(ordering: .relaxed) == 1 })
        let sweeps = metrics.deadlineSweeps.load(ordering: .relaxed)
        #expect(ServeProcess.eventually(5) { metrics.deadlineSweeps.load(ordering: .relaxed) >= sweeps + 2 })
        #expect(try ws.receive() == .binary(blob))
        #expect(try ws.receive() == .close(1000, ""))
    }
}
