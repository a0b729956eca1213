#if os(Linux)
import EventLoop
import Glibc
import HTTP1
import Synchronization
import TLS
import WebSocketCodec

/// The Linux transport: one WebSocket on the project's own epoll loop (TCP, optional TLS over memory BIOs, the
/// RFC 6455 §4.1 handshake from HTTP1, frames from WebSocketCodec). No compression is offered: gateway frames are
/// small JSON.
///
/// Why not FoundationNetworking's `URLSessionWebSocketTask` on Linux: it runs on libcurl's WebSocket support, which
/// Debian 12's libcurl (7.88) does not enable, so the task fails before the upgrade (see docs/CLIENT-SWIFT.md).
///
/// Threading: every field below is touched only on ``LoopWebSocketTransport/loop``'s thread; the async methods hop
/// there with `execute`. `@unchecked Sendable`: loop-confined state, reached only through `loop.execute`.
public final class LoopWebSocketTransport: WebSocketTransport, SocketConnectionDelegate, @unchecked Sendable {
    /// One loop thread per process serves every client connection (they are few and light).
    public static let sharedLoop: EventLoop = {
        // A client library cannot recover from failing to create its loop; this only fails when out of fds.
        let loop = try! EventLoop(index: 0, readBufferSize: 64 * 1024)
        try! loop.start()
        return loop
    }()

    private enum State { case idle, connecting, upgrading, open, closing, ended }

    let loop: EventLoop
    private let tlsContext: TLSContext?
    private let maxMessageBytes: Int
    private var state = State.idle
    private var connection: SocketConnection?
    private var tls: TLSEngine?
    private var plaintext: [UInt8] = []
    private var parser = HTTPResponseParser()
    private var decoder = WebSocketDecoder(role: .client, limits: WebSocketLimits(maxFrameSize: 1 << 20, maxMessageSize: 1 << 20))
    private var key = ""
    private var random = SystemRandomNumberGenerator()
    private var connectWaiter: CheckedContinuation<Void, any Error>?
    private var receiveWaiter: CheckedContinuation<String, any Error>?
    private var closeWaiter: CheckedContinuation<Void, Never>?
    private var inbox: [String] = []
    private var endedWith: TransportError?
    private var timer: TimerID?

    /// - Parameters:
    ///   - tlsContext: used for `wss` URLs; nil means the system CA store with peer verification.
    ///   - maxMessageBytes: the largest message accepted from the server.
    public init(loop: EventLoop = LoopWebSocketTransport.sharedLoop, tlsContext: TLSContext? = nil, maxMessageBytes: Int = 1 << 20) {
        self.loop = loop
        self.tlsContext = tlsContext
        self.maxMessageBytes = maxMessageBytes
    }

    public func connect(to url: WebSocketURL) async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            loop.execute { self.start(url, waiter) }
        }
    }

    public func send(text: String) async throws {
        let error: TransportError? = await withCheckedContinuation { waiter in
            loop.execute {
                guard self.state == .open else {
                    waiter.resume(returning: self.endedWith ?? .closed(code: nil))
                    return
                }
                self.writeFrame(.text, Array(text.utf8))
                waiter.resume(returning: nil)
            }
        }
        if let error { throw error }
    }

    public func receive() async throws -> String {
        try await withCheckedThrowingContinuation { waiter in
            loop.execute {
                if !self.inbox.isEmpty {
                    waiter.resume(returning: self.inbox.removeFirst())
                } else if let ended = self.endedWith {
                    waiter.resume(throwing: ended)
                } else {
                    self.receiveWaiter = waiter
                }
            }
        }
    }

    public func close(code: UInt16) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            loop.execute {
                switch self.state {
                case .open:
                    self.state = .closing
                    self.closeWaiter = waiter
                    self.writeFrame(.close, WebSocketFrameEncoder.closePayload(code: code, reason: ""))
                    // The server answers at once; do not wait forever for a peer that vanished.
                    self.timer = self.loop.schedule(afterMilliseconds: 2000) { self.end(.closed(code: code)) }
                case .ended:
                    waiter.resume()
                default:
                    self.end(.closed(code: code))
                    waiter.resume()
                }
            }
        }
    }

    // MARK: Loop thread

    private func start(_ url: WebSocketURL, _ waiter: CheckedContinuation<Void, any Error>) {
        precondition(state == .idle, "a transport connects once")
        state = .connecting
        connectWaiter = waiter
        decoder = WebSocketDecoder(role: .client, limits: WebSocketLimits(maxFrameSize: maxMessageBytes, maxMessageSize: maxMessageBytes))
        key = WebSocketHandshake.generateKey(using: &random)
        timer = loop.schedule(afterMilliseconds: 10_000) { self.end(.connectFailed("handshake timed out")) }
        do {
            let address = try SocketAddress.resolve(host: url.host, port: url.port)
            let connection = try SocketConnection.connect(to: address, on: loop) { error in
                if let error {
                    self.connection = nil  // closed by SocketConnection without connectionDidClose
                    self.end(.connectFailed("\(error)"))
                } else {
                    self.didConnect(url)
                }
            }
            connection.delegate = self
            self.connection = connection
        } catch {
            end(.connectFailed("\(error)"))
        }
    }

    private func didConnect(_ url: WebSocketURL) {
        guard state == .connecting else { return }
        state = .upgrading
        if url.isSecure {
            do {
                let context = try tlsContext ?? TLSContext.client()
                let engine = try TLSEngine(context: context, serverName: url.host)
                tls = engine
                try engine.startHandshake()
            } catch {
                end(.connectFailed("TLS: \(error)"))
                return
            }
        }
        let request = WebSocketHandshake.clientRequest(host: url.hostHeader, path: url.target, key: key)
        request.withUnsafeBytes { output($0) }
    }

    private func writeFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        let mask = UInt32.random(in: .min ... .max, using: &random)
        var frame = [UInt8](repeating: 0, count: WebSocketFrameEncoder.maxHeaderSize)
        let headerLength = frame.withUnsafeMutableBytes {
            WebSocketFrameEncoder.writeHeader(opcode: opcode, fin: true, rsv1: false, payloadLength: payload.count,
                                              maskKey: mask, to: $0.baseAddress!)
        }
        frame.removeLast(frame.count - headerLength)
        frame += payload
        frame.withUnsafeMutableBytes {
            WebSocketMasking.apply(key: mask, to: UnsafeMutableRawBufferPointer(rebasing: $0[headerLength...]))
        }
        frame.withUnsafeBytes { output($0) }
    }

    private func output(_ bytes: UnsafeRawBufferPointer) {
        guard let connection else { return }
        guard let tls else { return connection.write(bytes) }
        do { try tls.writePlaintext(bytes) } catch { return end(.connectFailed("TLS: \(error)")) }
        flushCiphertext()
    }

    private func flushCiphertext() {
        guard let tls, let connection, tls.hasPendingCiphertext else { return }
        var ciphertext: [UInt8] = []
        tls.takePendingCiphertext(into: &ciphertext)
        connection.write(ciphertext)
    }

    public func connectionDidRead(_ connection: SocketConnection, _ bytes: UnsafeMutableRawBufferPointer) -> Int {
        guard let tls else { return consume(bytes) }
        tls.receiveCiphertext(UnsafeRawBufferPointer(bytes))
        let status: TLSReadStatus
        do { status = try tls.readPlaintext(into: &plaintext) } catch {
            end(.connectFailed("TLS: \(error)"))
            return bytes.count
        }
        flushCiphertext()
        var pending = plaintext  // a copy: callbacks may end this transport while it is consumed
        plaintext = []
        let used = pending.withUnsafeMutableBytes { consume($0) }
        if used < pending.count && state != .ended { plaintext = Array(pending[used...]) }
        if status == .closed { end(.closed(code: nil)) }
        return bytes.count
    }

    public func connectionDidClose(_ connection: SocketConnection, error: SystemError?) {
        self.connection = nil
        end(state == .upgrading || state == .connecting ? .connectFailed("connection ended during the upgrade") : .closed(code: nil))
    }

    /// Plaintext from the server: the 101 response, then frames. Returns how many bytes were used.
    private func consume(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        var offset = 0
        if state == .upgrading {
            do {
                let parsed = try parser.parse(UnsafeRawBufferPointer(bytes))
                offset = parsed.consumed
                guard let response = parsed.response else { return offset }
                _ = try WebSocketHandshake.validateServerResponse(response.head, key: key)
            } catch let error as WebSocketHandshakeError {
                end(error.code == "unexpected_status" ? .upgradeRejected(status: error.status) : .connectFailed(error.message))
                return bytes.count
            } catch {
                end(.connectFailed("bad upgrade response"))
                return bytes.count
            }
            state = .open
            cancelTimer()
            connectWaiter?.resume()
            connectWaiter = nil
        }
        guard state == .open || state == .closing, offset < bytes.count else { return state == .ended ? bytes.count : offset }
        do {
            return try offset + decoder.decode(UnsafeMutableRawBufferPointer(rebasing: bytes[offset...])) { handle($0) }
        } catch let error as WebSocketProtocolError {
            writeFrame(.close, WebSocketFrameEncoder.closePayload(code: error.closeCode, reason: ""))
            end(.closed(code: error.closeCode))
        } catch {
            end(.closed(code: nil))
        }
        return bytes.count
    }

    private func handle(_ event: WebSocketEvent) {
        switch event {
        case .message(let opcode, let payload):
            guard opcode == .text else { return }  // the gateway sends only text
            let text = String(decoding: payload, as: UTF8.self)
            if let waiter = receiveWaiter {
                receiveWaiter = nil
                waiter.resume(returning: text)
            } else {
                inbox.append(text)
            }
        case .ping(let payload):
            writeFrame(.pong, Array(payload))
        case .pong:
            break
        case .close(let code, _):
            if state == .open {  // RFC 6455 §5.5.1: answer with the same code
                writeFrame(.close, WebSocketFrameEncoder.closePayload(code: code ?? WebSocketCloseCode.normal, reason: ""))
            }
            connection?.closeWhenFlushed()
            connection?.delegate = nil
            connection = nil
            end(.closed(code: code))
        }
    }

    /// Ends the transport once: fails whoever waits, closes the socket.
    private func end(_ reason: TransportError) {
        guard state != .ended else { return }
        let wasConnecting = state == .connecting || state == .upgrading
        state = .ended
        endedWith = reason
        cancelTimer()
        if let connection {
            connection.delegate = nil
            connection.close()
        }
        connection = nil
        tls = nil
        if wasConnecting { connectWaiter?.resume(throwing: reason) }
        connectWaiter = nil
        receiveWaiter?.resume(throwing: reason)
        receiveWaiter = nil
        closeWaiter?.resume()
        closeWaiter = nil
    }

    private func cancelTimer() {
        if let timer { _ = loop.cancel(timer) }
        timer = nil
    }
}
#endif
