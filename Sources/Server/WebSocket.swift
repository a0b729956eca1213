import EventLoop
import WebSocketCodec
import WebSocketDeflate

/// One open WebSocket on the server side (RFC 6455 §5–7): decodes frames through the codec, answers pings,
/// runs the close handshake and keep-alive, compresses outgoing messages when permessage-deflate was negotiated,
/// and closes slow consumers. Handed to the application's `WebSocketHandler`.
///
/// Loop thread only: use `loop.execute` to reach it from elsewhere.
public final class WebSocket {
    enum State {
        case open
        /// We sent a close frame at `since` and wait for the peer's.
        case closeSent(since: UInt64)
        case closed
    }

    // Stored properties are laid out in declaration order: word-sized ones first, the small ones together at the end,
    // so no padding sits between them; that keeps the object in a smaller malloc size class, and there is one per
    // connected device.
    unowned let connection: ServerConnection
    /// The connection's socket, metrics and limits, held here so a send (thousands per publish in a fan-out) reads
    /// them directly instead of through `connection` (an unowned load and release per access).
    private let socket: SocketConnection
    private let metrics: LoopMetrics
    /// `websocket.max_outbound_bytes`: more queued than this closes the connection as a slow consumer.
    public let maxOutboundBytes: Int
    private let compressionThresholdBytes: Int
    private let handler: WebSocketHandler
    private var deflater: PerMessageDeflater?
    private var pingSentAt: UInt64 = 0
    /// The request path the client upgraded on.
    public let path: String
    /// The negotiated subprotocol, if any.
    public let subprotocol: String?
    /// Free for the application (e.g. the authenticated user).
    public var userInfo: AnyObject?
    private var decoder: WebSocketDecoder
    private(set) var state = State.open
    private let plainTCP: Bool
    private var readingPausedForBackpressure = false
    private var closeCode: UInt16 = 1006

    /// The loop that owns this socket.
    public var loop: EventLoop { connection.state.loop }
    /// Bytes queued for the peer and not yet taken by the kernel.
    public var bufferedAmount: Int { socket.bufferedBytes }
    public var isOpen: Bool { if case .open = state { return true } else { return false } }

    init(connection: ServerConnection, handler: WebSocketHandler, path: String, subprotocol: String?,
         deflate: PerMessageDeflateParameters?) {
        self.connection = connection
        self.handler = handler
        self.path = path
        self.subprotocol = subprotocol
        let ws = connection.settings.webSocket
        socket = connection.socket
        metrics = connection.metrics
        plainTCP = connection.isPlainTCP
        maxOutboundBytes = ws.maxOutboundBytes
        compressionThresholdBytes = ws.compressionThresholdBytes
        let limits = WebSocketLimits(maxFrameSize: ws.maxFrameBytes, maxMessageSize: ws.maxMessageBytes)
        if let deflate {
            // The server inflates what the client compressed (client_* parameters) and deflates with server_*.
            let inflater = PerMessageInflater(windowBits: deflate.clientMaxWindowBits, noContextTakeover: deflate.clientNoContextTakeover)
            decoder = WebSocketDecoder(role: .server, limits: limits, inflater: inflater)
            deflater = PerMessageDeflater(windowBits: deflate.serverMaxWindowBits, noContextTakeover: deflate.serverNoContextTakeover,
                                          compressionLevel: ws.compression.compressionLevel, memLevel: ws.compression.memLevel)
        } else {
            decoder = WebSocketDecoder(role: .server, limits: limits)
        }
    }

    // MARK: Receiving

    /// Decodes what it can of `buffer`; returns the bytes consumed.
    func decode(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        pingSentAt = 0
        do {
            return try decoder.decode(buffer) { event in self.handle(event) }
        } catch let error as WebSocketProtocolError {
            fail(error)
            return buffer.count
        } catch {
            fail(WebSocketProtocolError(closeCode: WebSocketCloseCode.internalError, reason: "internal error"))
            return buffer.count
        }
    }

    private func handle(_ event: WebSocketEvent) {
        switch event {
        case .message(let opcode, let payload):
            metrics.add(metrics.messagesIn)
            guard case .open = state else { return } // after our close, data is discarded (RFC 6455 §5.5.1)
            handler.webSocket(self, didReceive: opcode, payload: payload)
        case .ping(let payload):
            metrics.add(metrics.controlFramesIn)
            if case .open = state { sendFrame(opcode: .pong, payload: payload, rsv1: false) }
        case .pong:
            metrics.add(metrics.controlFramesIn)
        case .close(let code, let reason):
            metrics.add(metrics.controlFramesIn)
            receivedClose(code: code, reason: reason)
        }
    }

    private func receivedClose(code: UInt16?, reason: UnsafeRawBufferPointer) {
        switch state {
        case .open:
            // Echo the peer's code (RFC 6455 §5.5.1); an empty close is answered with an empty close.
            let payload = code.map { WebSocketFrameEncoder.closePayload(code: $0, reason: "") } ?? []
            payload.withUnsafeBytes { sendFrame(opcode: .close, payload: $0, rsv1: false) }
            finish(code: code ?? WebSocketCloseCode.normal)
            // The server closes the TCP connection first (RFC 6455 §7.1.1).
            connection.closeAfterFlush()
            connection.phase = .lingering
        case .closeSent:
            finish(code: closeCode)
            connection.closeAfterFlush()
            connection.phase = .lingering
        case .closed:
            break
        }
    }

    /// The peer broke the protocol: send the close code and stop reading (RFC 6455 §7.1.7).
    private func fail(_ error: WebSocketProtocolError) {
        if case .open = state {
            let payload = WebSocketFrameEncoder.closePayload(code: error.closeCode, reason: error.reason)
            payload.withUnsafeBytes { sendFrame(opcode: .close, payload: $0, rsv1: false) }
        }
        finish(code: error.closeCode)
        connection.linger()
    }

    // MARK: Sending

    /// Sends a text or binary message. Compressed when deflate was negotiated and the message reaches the threshold.
    /// A peer that lets more than `websocket.max_outbound_bytes` pile up is closed with 1013 (try again later).
    public func send(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        guard case .open = state else { return }
        if bufferedAmount + payload.count > maxOutboundBytes {
            closeSlowConsumer()
            return
        }
        metrics.add(metrics.messagesOut)
        if let deflater, payload.count >= compressionThresholdBytes, deflater.noContextTakeover {
            // Without context takeover the compressed bytes depend only on the input: share them across the loop.
            let state = connection.state
            if let shared = state.sharedCompression,
               shared.matches(payload, windowBits: deflater.windowBits, level: deflater.compressionLevel, memLevel: deflater.memLevel) {
                metrics.add(metrics.sharedCompressions)
                shared.output.withUnsafeBytes { sendFrame(opcode: opcode, payload: $0, rsv1: true) }
            } else {
                metrics.add(metrics.compressions)
                var compressed: [UInt8] = []
                deflater.compress(payload, into: &compressed)
                compressed.withUnsafeBytes { sendFrame(opcode: opcode, payload: $0, rsv1: true) }
                if payload.count <= SharedCompression.maxBytes {
                    state.sharedCompression = SharedCompression(windowBits: deflater.windowBits, level: deflater.compressionLevel,
                                                                memLevel: deflater.memLevel, input: Array(payload), output: compressed)
                }
            }
        } else if let deflater, payload.count >= compressionThresholdBytes {
            metrics.add(metrics.compressions)
            var scratch = connection.state.compressScratch
            connection.state.compressScratch = []
            scratch.removeAll(keepingCapacity: true)
            deflater.compress(payload, into: &scratch)
            scratch.withUnsafeBytes { sendFrame(opcode: opcode, payload: $0, rsv1: true) }
            if scratch.capacity <= 1 << 20 { connection.state.compressScratch = scratch }
        } else {
            sendFrame(opcode: opcode, payload: payload, rsv1: false)
        }
        pauseReadingIfBehind()
    }

    /// Sends a message shared with other sockets of this loop: its frame bytes are queued by reference when this
    /// socket sends them as they are (no TLS, not compressed); otherwise like `send(opcode:payload:)`. The same
    /// slow-consumer limit and backpressure apply.
    public func send(_ message: WebSocketBroadcast) {
        guard case .open = state else { return }
        guard plainTCP, deflater == nil || message.payload.count < compressionThresholdBytes else {
            return message.payload.withUnsafeBytes { send(opcode: message.opcode, payload: $0) }
        }
        if socket.bufferedBytes + message.payload.count > maxOutboundBytes {
            closeSlowConsumer()
            return
        }
        let frame = message.frame
        metrics.add(metrics.messagesOut)
        metrics.add(metrics.bytesOut, frame.count)
        socket.write(frame)
        metrics.add(metrics.framesOut)
        pauseReadingIfBehind()
    }

    /// A client that sends faster than it reads would grow our queue; stop reading from it until it catches up.
    private func pauseReadingIfBehind() {
        if !readingPausedForBackpressure && socket.bufferedBytes > maxOutboundBytes / 2 {
            readingPausedForBackpressure = true
            socket.setReadingPaused(true)
            socket.notifyWhenDrained()
        }
    }

    public func send(text: String) {
        var text = text
        text.withUTF8 { send(opcode: .text, payload: UnsafeRawBufferPointer($0)) }
    }

    public func send(binary: [UInt8]) {
        binary.withUnsafeBytes { send(opcode: .binary, payload: $0) }
    }

    /// Starts the close handshake; the TCP connection closes when the peer answers or after `websocket.close_timeout_ms`.
    public func close(code: UInt16 = WebSocketCloseCode.normal, reason: String = "") {
        guard case .open = state else { return }
        let payload = WebSocketFrameEncoder.closePayload(code: code, reason: reason)
        payload.withUnsafeBytes { sendFrame(opcode: .close, payload: $0, rsv1: false) }
        closeCode = code
        state = .closeSent(since: connection.state.loop.now)
    }

    private func sendFrame(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, rsv1: Bool) {
        withUnsafeTemporaryAllocation(byteCount: WebSocketFrameEncoder.maxHeaderSize, alignment: 1) { header in
            let n = WebSocketFrameEncoder.writeHeader(opcode: opcode, fin: true, rsv1: rsv1, payloadLength: payload.count,
                                                      maskKey: nil, to: header.baseAddress!)
            connection.send(UnsafeRawBufferPointer(rebasing: header[0..<n]))
        }
        if !payload.isEmpty { connection.send(payload) }
        metrics.add(metrics.framesOut)
    }

    /// Closes with 1013 (try again later) because the peer does not read fast enough; counted in the metrics.
    public func closeSlowConsumer() {
        metrics.add(metrics.slowConsumerCloses)
        connection.state.shared.logger.info("closing slow consumer: \(bufferedAmount) bytes queued")
        close(code: WebSocketCloseCode.tryAgainLater, reason: "slow consumer")
        socket.setReadingPaused(false)
    }

    /// Asks for one `WebSocketHandler.webSocketDidDrain` once everything queued has been written (paced senders).
    public func notifyWhenDrained() { socket.notifyWhenDrained() }

    func outboundDrained() {
        if readingPausedForBackpressure {
            readingPausedForBackpressure = false
            socket.setReadingPaused(false)
        }
        if case .open = state { handler.webSocketDidDrain(self) }
    }

    // MARK: Life cycle

    private func finish(code: UInt16) {
        guard !isClosedState else { return }
        state = .closed
        closeCode = code
        connection.metrics.increment("switchboard_websocket_closes_total", label: String(code))
        handler.webSocketDidClose(self, code: code)
    }

    private var isClosedState: Bool { if case .closed = state { return true } else { return false } }

    /// The TCP connection is gone; tell the application if nobody has yet.
    func transportClosed() {
        finish(code: 1006)
    }

    /// Keep-alive and close deadlines, from the loop's sweep.
    func checkDeadlines(now: UInt64) {
        let ws = connection.settings.webSocket
        switch state {
        case .open:
            if pingSentAt != 0 {
                if now &- pingSentAt >= ws.pongTimeoutMs {
                    connection.metrics.add(connection.metrics.pingTimeouts)
                    connection.close()
                }
            } else if ws.pingIntervalMs > 0 && now &- connection.lastActivity >= ws.pingIntervalMs {
                pingSentAt = now
                sendFrame(opcode: .ping, payload: UnsafeRawBufferPointer(start: nil, count: 0), rsv1: false)
            }
        case .closeSent(let since):
            if now &- since >= ws.closeTimeoutMs { connection.close() }
        case .closed:
            break
        }
    }
}

extension WebSocket {
    /// One log line for a failed in-band `auth` (after the upgrade), like a refused upgrade: peer and reason, never
    /// the token.
    public func logAuthenticationFailure(reason: String) {
        connection.logRefusal(what: "authentication failed", path: path, status: 401, reason: reason)
    }
}
