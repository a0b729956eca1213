import EventLoop
import HTTP1
import TLS
import WebSocketCodec

/// One accepted socket from accept to close: the transport (plain or TLS) and the protocol phase on top of it
/// (HTTP requests, then possibly a WebSocket). Owned by one loop; never touched from another thread.
final class ServerConnection: SocketConnectionDelegate {
    enum Phase {
        /// The parser is boxed: this enum is stored inline in every connection, and an unboxed parser (a few hundred
        /// bytes) would stay in every WebSocket connection for its whole life after the upgrade.
        case http(HTTPPhase)
        case webSocket(WebSocket)
        /// We have said our last word (an HTTP error, or a close frame after a protocol failure) and only wait
        /// for the peer to close; anything it still sends is discarded.
        case lingering
    }

    let state: LoopState
    let socket: SocketConnection
    private var tls: TLSEngine?
    private var plaintext: [UInt8] = []
    var phase: Phase {
        didSet {
            // Every way into lingering (close answered, error response, protocol failure) starts the close timeout;
            // a stale 0 here made the next sweep drop the socket with the close frame still queued.
            if case .lingering = phase, lingerSince == 0 { lingerSince = state.loop.now }
        }
    }
    var registryIndex = -1
    let openedAt: UInt64
    /// Last byte read: the WebSocket phase pings after this much silence. HTTP deadlines never use it, so trickled
    /// bytes cannot keep a socket open.
    var lastActivity: UInt64
    /// When the part of the request being read (its head, then its body) got its first byte; nil between requests.
    /// The first request's head starts at accept, so a connection that says nothing still times out.
    var requestPartStartedAt: UInt64?
    /// When the last response was queued: the keep-alive timeout counts from here, not from the last byte read.
    var idleSince: UInt64 = 0
    private var lingerSince: UInt64 = 0
    /// Requests completed on this connection (0 = still within the handshake deadline).
    var requestsServed = 0
    /// The current HTTP request's `X-Request-Id` (echoed or generated), repeated on its response.
    var requestID: String?
    /// An HTTP application is producing the response to the current request; input waits in `stashedInput`.
    var awaitingResponse = false
    var stashedInput: [UInt8] = []
    /// The TCP peer's address (no port), looked up on the first request that needs it.
    lazy var peerHost: String? = SocketAddress.peer(of: socket.fd)?.host

    init(socket: SocketConnection, state: LoopState, tls: TLSEngine?) {
        self.socket = socket
        self.state = state
        self.tls = tls
        phase = .http(HTTPPhase(HTTPRequestParser(limits: state.shared.settings.httpLimits)))
        openedAt = state.loop.now
        lastActivity = openedAt
        requestPartStartedAt = openedAt
    }

    var settings: ServerSettings { state.shared.settings }
    var metrics: LoopMetrics { state.metrics }

    // MARK: Reading

    func connectionDidRead(_ connection: SocketConnection, _ bytes: UnsafeMutableRawBufferPointer) -> Int {
        metrics.add(metrics.bytesIn, bytes.count)
        lastActivity = state.loop.now
        guard let tls else { return processInput(bytes) }

        tls.receiveCiphertext(UnsafeRawBufferPointer(bytes))
        do {
            let status = try tls.readPlaintext(into: &plaintext)
            flushTLS()
            if !plaintext.isEmpty {
                let consumed = plaintext.withUnsafeMutableBytes { processInput($0) }
                if socket.isClosed { return bytes.count }
                plaintext.removeFirst(consumed)
            }
            if status == .closed { close() }
        } catch {
            if !tls.isHandshakeComplete { metrics.add(metrics.tlsHandshakeFailures) }
            state.shared.logger.debug("TLS error: \(error)")
            flushTLS()
            socket.closeWhenFlushed()
        }
        return bytes.count
    }

    /// Feeds plaintext to the current phase; returns how much was consumed (the rest waits for more bytes).
    func processInput(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        var offset = 0
        while offset < buffer.count && !socket.isClosed {
            if awaitingResponse {
                // Pipelined input waits until the application has answered the current request.
                stashedInput.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                socket.setReadingPaused(true)
                return buffer.count
            }
            let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[offset...])
            switch phase {
            case .http(let http):
                // A new request's first byte starts its head deadline; finishing the head starts the body's.
                if requestPartStartedAt == nil { requestPartStartedAt = state.loop.now }
                let wasReadingBody = http.parser.isReadingBody
                let result: (consumed: Int, request: HTTPRequest?)
                do {
                    result = try http.parser.parse(UnsafeRawBufferPointer(rest))
                } catch {
                    respondToParseError(error)
                    return buffer.count
                }
                offset += result.consumed
                guard let request = result.request else {
                    if !wasReadingBody, let head = http.parser.headAwaitingBody {
                        requestPartStartedAt = state.loop.now
                        headAwaitingBody(head)
                    }
                    return offset
                }
                requestPartStartedAt = nil
                handle(request)
            case .webSocket(let webSocket):
                offset += webSocket.decode(rest)
                if case .webSocket = phase { return offset }
            case .lingering:
                return buffer.count
            }
        }
        return offset
    }

    func connectionDidClose(_ connection: SocketConnection, error: SystemError?) {
        state.remove(self)
        state.shared.openConnections.subtract(1, ordering: .relaxed)
        metrics.add(metrics.connectionsOpen, -1)
        if case .webSocket(let webSocket) = phase { webSocket.transportClosed() }
        phase = .lingering
        tls = nil
    }

    func connectionDidDrain(_ connection: SocketConnection) {
        if case .webSocket(let webSocket) = phase { webSocket.outboundDrained() }
    }

    // MARK: Writing

    /// Queues bytes for the peer, through TLS when the connection has it.
    func send(_ bytes: UnsafeRawBufferPointer) {
        guard let tls else {
            metrics.add(metrics.bytesOut, bytes.count)
            socket.write(bytes)
            return
        }
        do {
            try tls.writePlaintext(bytes)
        } catch {
            state.shared.logger.debug("TLS write failed: \(error)")
            socket.close()
            return
        }
        flushTLS()
    }

    func send(_ bytes: [UInt8]) { bytes.withUnsafeBytes { send($0) } }

    /// True without TLS: bytes queued here reach the socket as they are.
    var isPlainTCP: Bool { tls == nil }

    private func flushTLS() {
        guard let tls, tls.hasPendingCiphertext else { return }
        state.tlsScratch.removeAll(keepingCapacity: true)
        tls.takePendingCiphertext(into: &state.tlsScratch)
        metrics.add(metrics.bytesOut, state.tlsScratch.count)
        state.tlsScratch.withUnsafeBytes { socket.write($0) }
        if state.tlsScratch.count > 256 * 1024 { state.tlsScratch = [] }
    }

    // MARK: Closing

    /// Closes the TCP connection once queued output is written (TLS: after close_notify).
    func closeAfterFlush() {
        if let tls {
            tls.shutdown()
            flushTLS()
        }
        socket.closeWhenFlushed()
    }

    /// Sends what is queued, half-closes, and discards input until the peer closes or the close timeout passes.
    func linger() {
        phase = .lingering
        socket.shutdownWriteWhenFlushed()
    }

    func close() {
        socket.close()
    }

    /// Called by the loop's sweep with the loop's clock.
    func checkDeadlines(now: UInt64) {
        switch phase {
        case .http:
            if awaitingResponse { return }   // the application is answering; its own time is not the client's fault
            if let started = requestPartStartedAt {
                // Every request head and body must arrive within the limit from its own first byte, however
                // many requests came before (a head trickled after a quick first request is still slow-loris).
                let limit = settings.webSocket.handshakeTimeoutMs
                if limit > 0 && now &- started >= limit {
                    metrics.increment("switchboard_handshake_failures_total", label: "handshake_timeout")
                    respond(HTTPResponse.jsonError(status: 408, code: "request_timeout",
                                                   message: "the request did not arrive within \(limit) ms"), keepAlive: false)
                }
            } else if settings.keepAliveTimeoutMs > 0 && now &- idleSince >= settings.keepAliveTimeoutMs {
                close()
            }
        case .webSocket(let webSocket):
            webSocket.checkDeadlines(now: now)
        case .lingering:
            if now &- lingerSince >= settings.webSocket.closeTimeoutMs { close() }
        }
    }

    /// Server shutdown: WebSockets get close 1001, idle HTTP connections are closed.
    func drain() {
        switch phase {
        case .webSocket(let webSocket):
            webSocket.close(code: WebSocketCloseCode.goingAway, reason: "server shutting down")
        case .http:
            close()
        case .lingering:
            break
        }
    }
}

/// The HTTP phase's parser in a box of its own (see `ServerConnection.Phase.http`), parsed in place. Loop-confined
/// like its connection.
final class HTTPPhase {
    var parser: HTTPRequestParser

    init(_ parser: HTTPRequestParser) { self.parser = parser }
}
