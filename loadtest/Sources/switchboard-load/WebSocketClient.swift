import EventLoop
import Glibc
import HTTP1
import TLS
import WebSocketCodec
import WebSocketDeflate

/// One client WebSocket connection of the load generator, on the project's own event loop: TCP connect (optionally
/// from a chosen source address), optional TLS over memory BIOs, the RFC 6455 §4.1 opening handshake with an optional
/// permessage-deflate offer, then masked frames out and decoded messages in.
///
/// Thread/ownership: created, used and ended on one loop thread; not thread-safe.
/// `@unchecked Sendable`: loop-confined; Sendable only so timers and tasks created on that loop may capture it.
/// Limits: the handshake must finish within `ClientSettings.handshakeTimeoutMs`, our close is answered within
/// `closeTimeoutMs`, messages above `maxMessageBytes` fail the connection (1009).
final class WebSocketClient: SocketConnectionDelegate, @unchecked Sendable {
    enum State { case idle, upgrading, open, closing, ended }

    /// Index of this connection within its loop driver (stable for the run).
    let id: Int
    let loop: EventLoop
    let settings: ClientSettings
    weak var delegate: WebSocketClientDelegate?
    /// Request target for the upgrade (path and query, e.g. "/v1/ws?token=…"); nil uses the `--url` path.
    var requestPath: String?
    private(set) var state: State = .idle

    var connection: SocketConnection?
    var tls: TLSEngine?
    var decoder: WebSocketDecoder?
    var deflater: PerMessageDeflater?
    var responseParser = HTTPResponseParser()
    var handshakeKey = ""
    var deflateOffer: String?
    /// Plaintext received through TLS and not yet consumed (TLS only; plain TCP uses the socket's leftover buffer).
    var plaintext: [UInt8] = []
    /// Reused for outgoing frames and ciphertext so steady-state sending does not allocate.
    var frameScratch: [UInt8] = []
    var compressScratch: [UInt8] = []
    var ciphertextScratch: [UInt8] = []
    var startedAt: UInt64 = 0
    var timer: TimerID?
    /// Set once we sent a close frame: the server's reply then ends the connection in order.
    var closeSent = false
    /// Which node of the cluster to connect to (`ClientSettings.node(_:)`; 0 = `--url`). Set before `start`.
    var node = 0

    init(id: Int, loop: EventLoop, settings: ClientSettings) {
        self.id = id
        self.loop = loop
        self.settings = settings
    }

    /// Starts connecting. Failures (including immediate ones) arrive later through `clientDidEnd`.
    func start(source: SocketAddress?, random: inout FastRandom) {
        precondition(state == .idle, "start called twice")
        state = .upgrading
        startedAt = MonotonicClock.nanoseconds()
        handshakeKey = WebSocketHandshake.generateKey(using: &random)
        timer = loop.schedule(afterMilliseconds: settings.handshakeTimeoutMs) { [weak self] in
            self?.timer = nil
            self?.fail("handshake_timeout")
        }
        do {
            let connection = try SocketConnection.connect(to: settings.node(node).address, from: source, on: loop) { [weak self] error in
                self?.didConnect(error: error)
            }
            connection.delegate = self
            self.connection = connection
        } catch let error as SystemError {
            let kind = error.errno == EADDRNOTAVAIL ? "bind_address_unavailable" : "socket_" + errnoName(error.errno)
            loop.schedule(afterMilliseconds: 0) { [weak self] in self?.fail(kind) }
        } catch {
            loop.schedule(afterMilliseconds: 0) { [weak self] in self?.fail("socket_error") }
        }
    }

    private func didConnect(error: SystemError?) {
        guard state == .upgrading else { return }
        if let error {
            connection = nil  // already closed by SocketConnection, without connectionDidClose
            fail(error.errno == ECONNREFUSED ? "connect_refused" : "connect_" + errnoName(error.errno))
            return
        }
        var extensions: String?
        if settings.deflate {
            let offer = PerMessageDeflateNegotiation.clientOffer()
            deflateOffer = offer
            extensions = offer
        }
        let target = settings.node(node).target
        let request = WebSocketHandshake.clientRequest(
            host: target.hostHeader, path: requestPath ?? target.path, key: handshakeKey, extensions: extensions)
        if let context = settings.tlsContext {
            do {
                let engine = try TLSEngine(context: context, serverName: target.host)
                tls = engine
                try engine.startHandshake()
            } catch {
                fail("tls_error")
                return
            }
        }
        request.withUnsafeBytes { output($0) }
    }

    /// Parses the 101 response; returns how many bytes belonged to it, or nil when the client failed.
    func consumeHandshake(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let parsed: (consumed: Int, response: (head: HTTPResponseHead, body: [UInt8])?)
        do {
            parsed = try responseParser.parse(bytes)
        } catch {
            fail("handshake_bad_response")
            return nil
        }
        guard let response = parsed.response else { return parsed.consumed }
        let agreed: (extensions: String?, subprotocol: String?)
        do {
            agreed = try WebSocketHandshake.validateServerResponse(response.head, key: handshakeKey)
        } catch {
            fail(error.code == "unexpected_status" ? "http_\(error.status)" : "handshake_" + error.code)
            return nil
        }
        var inflater: PerMessageInflater?
        if let header = agreed.extensions {
            // RFC 6455 §4.1 step 5: an extension we did not offer fails the connection.
            guard let offer = deflateOffer,
                  let parameters = try? PerMessageDeflateNegotiation.acceptServerResponse(header, offer: offer) else {
                fail("handshake_bad_extension")
                return nil
            }
            inflater = parameters.makeInflater(role: .client)
            deflater = parameters.makeDeflater(role: .client)
        }
        let limits = WebSocketLimits(maxFrameSize: settings.maxMessageBytes, maxMessageSize: settings.maxMessageBytes)
        decoder = WebSocketDecoder(role: .client, limits: limits, inflater: inflater)
        state = .open
        cancelTimer()
        delegate?.clientDidOpen(self, upgradeMicroseconds: MonotonicClock.microseconds(since: startedAt))
        return parsed.consumed
    }

    // MARK: Ending

    /// Starts the closing handshake (RFC 6455 §7.1.2) with 1000; the connection ends when the server answers or
    /// after `closeTimeoutMs` (then as `close_timeout`). Before the upgrade completes it simply aborts.
    func close() {
        switch state {
        case .open:
            state = .closing
            closeSent = true
            sendControl(.close, WebSocketFrameEncoder.closePayload(code: WebSocketCloseCode.normal, reason: ""))
            timer = loop.schedule(afterMilliseconds: settings.closeTimeoutMs) { [weak self] in
                self?.timer = nil
                self?.fail("close_timeout")
            }
        case .idle, .upgrading:
            abort()
        case .closing, .ended:
            break
        }
    }

    /// Drops the connection now without a close handshake; reported as an orderly end (failure nil).
    func abort() {
        end(failure: nil)
    }

    /// Ends with a failure kind for the report.
    func fail(_ kind: String) {
        end(failure: kind)
    }

    func end(failure: String?) {
        guard state != .ended else { return }
        state = .ended
        cancelTimer()
        let connection = self.connection
        self.connection = nil
        connection?.delegate = nil
        connection?.close()
        tls = nil
        let delegate = self.delegate
        self.delegate = nil
        delegate?.clientDidEnd(self, failure: failure)
    }

    private func cancelTimer() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    // MARK: SocketConnectionDelegate

    func connectionDidRead(_ connection: SocketConnection, _ bytes: UnsafeMutableRawBufferPointer) -> Int {
        guard let tls else { return consume(bytes) }
        tls.receiveCiphertext(UnsafeRawBufferPointer(bytes))
        let status: TLSReadStatus
        do {
            status = try tls.readPlaintext(into: &plaintext)
        } catch {
            flushCiphertext()
            fail("tls_error")
            return bytes.count
        }
        flushCiphertext()
        if !plaintext.isEmpty {
            // Work on a local copy: callbacks may end this client, which must not touch a buffer in use.
            var pending = plaintext
            plaintext = []
            let consumed = pending.withUnsafeMutableBytes { consume($0) }
            if consumed < pending.count && state != .ended {
                pending.removeFirst(consumed)
                plaintext = pending
            }
        }
        // close_notify: the peer is done; the socket is still open and `end` closes it.
        if status == .closed && state != .ended { peerEnded(error: nil) }
        return bytes.count
    }

    func connectionDidClose(_ connection: SocketConnection, error: SystemError?) {
        self.connection = nil  // already closed
        peerEnded(error: error)
    }

    /// The server closed the stream (TCP end, reset or TLS close_notify): a failure unless we were closing.
    private func peerEnded(error: SystemError?) {
        switch state {
        case .upgrading: fail(error == nil ? "handshake_eof" : "connection_reset")
        case .open: fail(error == nil ? "closed_by_server" : "connection_reset")
        case .closing: end(failure: nil)  // we asked to close; the server may close TCP right after its close frame
        case .idle, .ended: break
        }
    }
}

/// A short errno name for failure kinds ("econnreset"); numbers for the rare ones.
func errnoName(_ code: Int32) -> String {
    switch code {
    case ECONNREFUSED: return "econnrefused"
    case ECONNRESET: return "econnreset"
    case ETIMEDOUT: return "etimedout"
    case EADDRNOTAVAIL: return "eaddrnotavail"
    case EMFILE: return "emfile"
    case ENFILE: return "enfile"
    case ENETUNREACH: return "enetunreach"
    case EHOSTUNREACH: return "ehostunreach"
    case EPIPE: return "epipe"
    default: return "errno_\(code)"
    }
}
