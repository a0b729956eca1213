import EventLoop
import HTTP1
import Synchronization
import WebSocketCodec
@testable import switchboard_load

/// A minimal WebSocket echo server for the harness's own tests (the harness must not link the real server): accepts
/// on 127.0.0.1 port 0, answers any upgrade with 101, echoes data messages unmasked, answers close with close.
/// `dropEvery` > 0 silently drops every n-th message of each connection, so tests can check loss is caught.
/// Runs on its own loop thread; `stop()` from the test thread.
final class TestEchoServer: @unchecked Sendable {
    let loop: EventLoop
    let port: UInt16
    private let listener: Listener
    private let dropEvery: Int
    /// Loop-confined: connections stay referenced here (SocketConnection's delegate is weak).
    private var connections: [EchoConnection] = []

    init(dropEvery: Int = 0) throws {
        loop = try EventLoop()
        self.dropEvery = dropEvery
        var accept: ((Int32) -> Void)?
        listener = try Listener(
            address: try SocketAddress.resolve(host: "127.0.0.1", port: 0), loop: loop, reusePort: false,
            onAccept: { accept?($0) }, onError: { _ in })
        port = listener.localAddress.port
        accept = { [unowned self] fd in self.adopt(fd) }
        try loop.start()
        let started = Atomic<Bool>(false)
        loop.execute { [listener] in
            try? listener.start()
            started.store(true, ordering: .releasing)
        }
        while !started.load(ordering: .acquiring) { MonotonicClock.sleep(nanoseconds: 1_000_000) }
    }

    var url: String { "ws://127.0.0.1:\(port)/" }

    /// Closes the listening socket (later connects are refused) and stops the loop.
    func stop() {
        loop.execute { [listener] in listener.close() }
        loop.stop()
        loop.join()
    }

    private func adopt(_ fd: Int32) {
        guard let socket = try? SocketConnection(fd: fd, loop: loop) else { return }
        let connection = EchoConnection(socket: socket, dropEvery: dropEvery)
        socket.delegate = connection
        connections.append(connection)
    }

    /// One accepted connection: handshake, then echo.
    final class EchoConnection: SocketConnectionDelegate {
        let socket: SocketConnection
        let dropEvery: Int
        var upgraded = false
        var decoder = WebSocketDecoder(role: .server, limits: WebSocketLimits(maxFrameSize: 1 << 20, maxMessageSize: 1 << 20))
        var received = 0

        init(socket: SocketConnection, dropEvery: Int) {
            self.socket = socket
            self.dropEvery = dropEvery
        }

        func connectionDidRead(_ connection: SocketConnection, _ bytes: UnsafeMutableRawBufferPointer) -> Int {
            var offset = 0
            if !upgraded {
                let text = Array(bytes)
                guard let end = text.indices.first(where: { text[$0...].starts(with: [13, 10, 13, 10]) }) else { return 0 }
                let head = String(decoding: text[..<end], as: UTF8.self)
                let keyLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
                let key = keyLine.map { String($0.dropFirst("sec-websocket-key:".count)).trimmingSpaces } ?? ""
                let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
                    "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptKey(for: key))\r\n\r\n"
                connection.write(Array(response.utf8))
                upgraded = true
                offset = end + 4
            }
            let rest = UnsafeMutableRawBufferPointer(rebasing: bytes[offset...])
            do {
                return offset + (try decoder.decode(rest) { event in
                    switch event {
                    case .message(let opcode, let payload):
                        received += 1
                        if dropEvery > 0 && received % dropEvery == 0 { return }
                        connection.write(WebSocketFrameEncoder.frame(opcode: opcode, payload: payload))
                    case .close(let code, _):
                        let payload = WebSocketFrameEncoder.closePayload(code: code ?? 1000, reason: "")
                        connection.write(WebSocketFrameEncoder.frame(opcode: .close, payload: payload))
                        connection.closeWhenFlushed()
                    case .ping, .pong:
                        break
                    }
                })
            } catch {
                connection.close()
                return bytes.count
            }
        }

        func connectionDidClose(_ connection: SocketConnection, error: SystemError?) {}
    }
}
