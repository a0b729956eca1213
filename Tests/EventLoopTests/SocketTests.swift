// CLinux too: which module owns `SOCK_STREAM` depends on the order clang modules load in (ListenProbeTests imports CLinux).
import CLinux
import Dispatch
import Glibc
import Synchronization
import Testing
@testable import EventLoop

/// Holds the server side of the loopback tests: a listener whose accepted sockets echo.
final class EchoServer: @unchecked Sendable {
    let group: EventLoopGroup
    var listeners: [Listener] = []
    var connections: [SocketConnection] = []
    var delegates: [RecordingDelegate] = []
    private let lock = Mutex(())
    let port: UInt16

    init(loops: Int = 2, echo: Bool = true) throws {
        group = try EventLoopGroup(count: loops)
        var port: UInt16 = 0
        var listeners: [Listener] = []
        let sink = AcceptSink()
        for loop in group.loops {
            let address = try SocketAddress.resolve(host: "127.0.0.1", port: port)
            let listener = try Listener(address: address, loop: loop, reusePort: true,
                                        onAccept: { fd in sink.server?.adopt(fd, on: loop, echo: echo) }, onError: { _ in })
            port = listener.localAddress.port   // the first bind picks the port, the others share it
            listeners.append(listener)
        }
        self.port = port
        self.listeners = listeners
        sink.server = self
        for listener in listeners {
            let semaphore = DispatchSemaphore(value: 0)
            listener.loop.execute { try! listener.start(); semaphore.signal() }
            semaphore.wait()
        }
    }

    private func adopt(_ fd: Int32, on loop: EventLoop, echo: Bool) {
        let delegate = RecordingDelegate(echo: echo)
        let connection = try! SocketConnection(fd: fd, loop: loop)
        connection.delegate = delegate
        // Two loops may accept at once.
        lock.withLock { _ in
            connections.append(connection)
            delegates.append(delegate)
        }
    }

    func shutdown() {
        for listener in listeners {
            let semaphore = DispatchSemaphore(value: 0)
            listener.loop.execute { listener.close(); semaphore.signal() }
            semaphore.wait()
        }
        group.shutdown()
    }
}

/// Lets the accept callbacks, created before the server object is complete, reach it.
final class AcceptSink: @unchecked Sendable {
    weak var server: EchoServer?
}

@Suite(.serialized) struct SocketTests {
    @Test func echoesOverLoopbackAcrossLoops() throws {
        let server = try EchoServer(loops: 2)
        defer { server.shutdown() }
        var clients: [BlockingClient] = []
        for i in 0..<8 {
            let client = try BlockingClient(port: server.port)
            let message = Array("hello \(i)".utf8)
            client.send(message)
            #expect(client.receive(message.count) == message)
            clients.append(client)
        }
        for c in clients { c.close() }
    }

    @Test func largeWritesQueueThenDrainWhenThePeerReads() throws {
        let server = try EchoServer(loops: 1, echo: false)
        defer { server.shutdown() }
        let client = try BlockingClient(port: server.port)
        defer { client.close() }
        let loop = server.group.loops[0]
        client.send([1])
        // The server has accepted the connection and read the byte: its side exists to write from.
        #expect(eventually(on: loop) { server.delegates.first?.received == [1] })
        let payload = (0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        // 8 MiB is more than loopback socket buffers hold: some must stay queued until the client reads.
        let queued: Int? = onLoop(loop) { done in
            let connection = server.connections[0]
            connection.write(payload)
            connection.notifyWhenDrained()
            loop.execute { done(connection.bufferedBytes) }
        }
        #expect((queued ?? 0) > 0)
        let received = client.receive(payload.count)
        #expect(received.count == payload.count)
        #expect(received == payload)
        let drained: Int? = onLoop(loop) { done in done(server.delegates[0].drained) }
        #expect(drained == 1)
    }

    @Test func peerCloseIsReportedOnceAndClosingDropsTheSocket() throws {
        let server = try EchoServer(loops: 1)
        defer { server.shutdown() }
        let client = try BlockingClient(port: server.port)
        client.send([9])
        #expect(client.receive(1) == [9])
        client.close()
        #expect(eventually(on: server.group.loops[0]) { server.delegates[0].closed && server.connections[0].isClosed })

        let second = try BlockingClient(port: server.port)
        defer { second.close() }
        second.send([1])
        #expect(second.receive(1) == [1])
        _ = onLoop(server.group.loops[0]) { (done: @escaping @Sendable (Bool) -> Void) in
            server.connections[1].write([7, 7])
            server.connections[1].closeWhenFlushed()
            done(true)
        }
        #expect(second.receive(2) == [7, 7])
        #expect(second.readsEOF())
    }

    @Test func nonBlockingConnectReachesAListener() throws {
        let server = try EchoServer(loops: 1)
        defer { server.shutdown() }
        let group = try EventLoopGroup(count: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let delegate = RecordingDelegate()
        let holder = Mutex<SocketConnection?>(nil)
        let echoed: [UInt8]? = onLoop(loop) { done in
            let address = try! SocketAddress.resolve(host: "127.0.0.1", port: server.port)
            let connection = try! SocketConnection.connect(to: address, on: loop) { error in
                precondition(error == nil)
            }
            connection.delegate = delegate
            holder.withLock { $0 = connection }
            connection.write([1, 2, 3])
            delegate.onRead = { d in if d.received.count >= 3 { done(d.received) } }
        }
        #expect(echoed == [1, 2, 3])
    }

    @Test func connectToAClosedPortFails() throws {
        let group = try EventLoopGroup(count: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        // Bind and close to get a port nobody listens on.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let port = try SocketAddress.local(of: fd).port
        Glibc.close(fd)
        let failed: Bool? = onLoop(loop) { done in
            let address = try! SocketAddress.resolve(host: "127.0.0.1", port: port)
            _ = try? SocketConnection.connect(to: address, on: loop) { error in done(error?.errno == ECONNREFUSED) }
        }
        #expect(failed == true)
    }

    @Test func resolvesLiteralsAndNames() throws {
        #expect(try SocketAddress.resolve(host: "127.0.0.1", port: 80).description == "127.0.0.1:80")
        #expect(try SocketAddress.resolve(host: "[::1]", port: 443).description == "[::1]:443")
        #expect(try SocketAddress.resolve(host: "localhost", port: 1).port == 1)
        #expect(throws: SystemError.self) { try SocketAddress.resolve(host: "no-such-host.invalid", port: 1) }
    }
}

