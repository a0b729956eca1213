import Glibc
import Testing
@testable import EventLoop

/// Bytes queued by reference (`SocketConnection.write(SharedBytes)`) between bytes queued by copy, over real
/// loopback sockets.
@Suite(.serialized) struct SharedBytesTests {
    /// Accepts `count` clients (each says one byte) and returns the server, its loop and the clients.
    private func connected(_ count: Int) throws -> (EchoServer, EventLoop, [BlockingClient]) {
        let server = try EchoServer(loops: 1, echo: false)
        let loop = server.group.loops[0]
        var clients: [BlockingClient] = []
        for i in 0..<count {
            let client = try BlockingClient(port: server.port)
            client.send([UInt8(i)])
            clients.append(client)
            #expect(eventually(on: loop) { server.delegates.count == i + 1 && server.delegates[i].received == [UInt8(i)] })
        }
        return (server, loop, clients)
    }

    private static func pattern(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
    }

    @Test func framesSharedAcrossSocketsAndQueuedInOneIterationArriveIntactAndInOrder() throws {
        let (server, loop, clients) = try connected(2)
        defer { clients.forEach { $0.close() }; server.shutdown() }
        let first = Self.pattern(300, seed: 1), second = Self.pattern(5000, seed: 2)
        let watched = WeakBox()
        // One task, so everything below is queued in one loop iteration and flushed together before it sleeps.
        let queued: [Int]? = onLoop(loop) { done in
            let a = SharedBytes(first), b = SharedBytes(second)
            watched.object = a
            for connection in server.connections {
                connection.write([0xA0])
                connection.write(a)
                connection.write([0xB0, 0xB1])
                connection.write(b)
                connection.write(a)   // the same bytes twice in one queue
            }
            done(server.connections.map(\.bufferedBytes))
        }
        let expected = [0xA0] + first + [0xB0, 0xB1] + second + first
        #expect(queued == [expected.count, expected.count])
        for client in clients { #expect(client.receive(expected.count) == expected) }
        // Written out everywhere: no queue holds the shared bytes any more.
        #expect(eventually(on: loop) { watched.object == nil })
    }

    @Test func aSharedBufferTheKernelTakesInPartsResumesWhereItStopped() throws {
        let (server, loop, clients) = try connected(2)
        defer { clients.forEach { $0.close() }; server.shutdown() }
        // 8 MiB is more than loopback socket buffers hold: each socket's writev stops inside the shared bytes, and
        // the two sockets stop at different places.
        let big = Self.pattern(8 << 20, seed: 3)
        let queued: [Int]? = onLoop(loop) { done in
            let shared = SharedBytes(big)
            for (i, connection) in server.connections.enumerated() {
                connection.write([UInt8(i)])
                connection.write(shared)
                connection.write([0xEE])
            }
            server.connections[0].notifyWhenDrained()   // only the first asks to hear when its queue is empty
            loop.execute { done(server.connections.map(\.bufferedBytes)) }   // after the first flush
        }
        #expect(queued?.allSatisfy { $0 > 0 } == true)
        for (i, client) in clients.enumerated() {
            let received = client.receive(big.count + 2)
            #expect(received.count == big.count + 2)
            #expect(received == [UInt8(i)] + big + [0xEE])
        }
        #expect(eventually(on: loop) { server.delegates[0].drained == 1 })
        let drained: [Int]? = onLoop(loop) { done in done(server.delegates.map(\.drained)) }
        #expect(drained == [1, 0])
    }

    @Test func sharedBytesAreHeldByReferenceUnlessTheyFitInTheTailChunk() {
        let held = WeakBox(), copied = WeakBox()
        var buffer = OutboundBuffer()
        do {
            let first = SharedBytes([1, 2, 3])
            held.object = first
            buffer.append(first)   // an empty queue has no chunk to copy into: held
            [UInt8](repeating: 4, count: 10).withUnsafeBytes { buffer.append($0) }   // a new chunk with room
            let second = SharedBytes([5, 6])
            copied.object = second
            buffer.append(second)  // fits behind the 10 bytes: copied
        }
        #expect(buffer.count == 15)
        #expect(held.object != nil)
        #expect(copied.object == nil)
    }
}

/// A weak reference the tests read to see whether a queue still holds shared bytes.
/// `@unchecked Sendable`: written once before the loop task that frees the object, read after it.
final class WeakBox: @unchecked Sendable {
    weak var object: SharedBytes?
}
