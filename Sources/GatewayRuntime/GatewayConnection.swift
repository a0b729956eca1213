import Auth
import EventLoop
import FoundationEssentials
import Gateway
import GatewayProtocol
import JSON
import Server
import WebSocketCodec

/// One client socket of the gateway endpoint: the bridge between its WebSocket (on an I/O loop) and the hub (on the
/// hub loop). Frames from the hub are handed to the socket's loop in order; commands go to the hub in order.
///
/// `@unchecked Sendable`: `socket` and the auth state are touched only on the socket's loop; the identity is
/// written once before the hub first sees this object (the hub learns of it through `execute`, which orders memory).
final class GatewayConnection: WebSocketHandler, GatewayClient, @unchecked Sendable {
    private let endpoint: GatewayEndpoint
    /// Whether the token was accepted (with it, or with `auth`); the identity itself is kept in the fields below only.
    private var authenticated = false
    private var resumeAfter: Int64?
    /// Strong, not weak (a weak load per delivered frame showed in fan-out profiles): the socket holds this handler,
    /// and the cycle is broken in `webSocketDidClose`, which every socket gets exactly once.
    private var socket: WebSocket?
    /// The queues to and from the hub for this socket's loop (set when the socket opens).
    private var link: HubLink?
    private var authTimer: TimerID?
    private var registered = false
    /// Frames waiting for the socket to drain (socket loop only): a resume's replay, then any live frame that arrived
    /// behind it (order is kept). `backlogHead` is the next to send.
    private var backlog: [[UInt8]] = []
    private var backlogHead = 0
    /// Live bytes queued behind a replay: past `websocket.max_outbound_bytes` the reader is too slow for live traffic.
    private var liveBytesInBacklog = 0

    /// The identity's fields, stored (the hub reads them several times per command; reading them through the
    /// optional struct copied it, with a retain and release of each string, every time), and only they: the whole
    /// identity beside them cost ≈ 56 bytes per device. Written by `adopt`.
    private(set) var userId = ""
    private(set) var deviceId = ""
    private(set) var clientType = ""
    /// The address group it connected from (`SourceAddress.group`), for the guessing limits.
    let sourceAddress: String?

    init(endpoint: GatewayEndpoint, identity: ClientIdentity?, resumeAfter: Int64?, sourceAddress: String?) {
        self.endpoint = endpoint
        self.sourceAddress = sourceAddress
        self.resumeAfter = resumeAfter
        adopt(identity)
    }

    private func adopt(_ identity: ClientIdentity?) {
        userId = identity?.userId ?? ""
        deviceId = identity?.deviceId ?? ""
        clientType = identity?.clientType ?? ""
        authenticated = identity != nil
    }

    // MARK: WebSocketHandler (socket loop)

    func webSocketDidOpen(_ socket: WebSocket) {
        self.socket = socket
        link = endpoint.link(for: socket.loop)
        if authenticated {
            register()
        } else {
            authTimer = socket.loop.schedule(afterMilliseconds: endpoint.authTimeoutMs) { [weak self] in
                guard let self, !self.authenticated else { return }
                self.socket?.close(code: GatewayCloseCode.authenticationTimeout, reason: "authenticate within \(self.endpoint.authTimeoutMs) ms")
            }
        }
    }

    func webSocket(_ socket: WebSocket, didReceive opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        guard opcode == .text else {
            socket.send(text: String(decoding: ServerFrames.error(id: nil, GatewayError(.invalidJSON, "commands are JSON text frames, not binary")), as: UTF8.self))
            return
        }
        guard payload.count <= endpoint.maxCommandBytes else {
            // The command is not parsed, but its id is usually first: a bounded scan recovers it for the reply.
            let id = CommandIDPeek.id(in: payload)
            socket.send(text: String(decoding: ServerFrames.error(id: id, GatewayError(.messageTooLarge,
                "a command may have at most \(endpoint.maxCommandBytes) bytes; this one has \(payload.count)")), as: UTF8.self))
            return
        }
        let frame = Array(payload)
        guard authenticated else {
            authenticate(frame, socket: socket)
            return
        }
        guard endpoint.admitCommand() else {
            refuseOverloaded(frame)
            return
        }
        link?.toHub(.command(self, frame))
    }

    /// At the pending-command bound: answer at once, on this loop, so nothing waits unanswered and nothing grows.
    private func refuseOverloaded(_ frame: [UInt8]) {
        // The strict parser only to find the id; a frame without one gets `"id":null` like any unreadable command.
        var id: String?
        if case .object(let members)? = try? JSONValue.parse(frame) { id = members["id"]?.stringValue }
        var error = GatewayError(.overloaded, "the server is at capacity; retry after \(endpoint.overloadRetryAfterMs) ms")
        error.retryAfterMs = endpoint.overloadRetryAfterMs
        sendNow(ServerFrames.error(id: id, error))
    }

    func webSocketDidClose(_ socket: WebSocket, code: UInt16) {
        self.socket = nil
        dropBacklog()
        if let authTimer { socket.loop.cancel(authTimer) }
        guard registered else { return }
        link?.toHub(.disconnect(self))
    }

    /// The first frame of an unauthenticated socket must be `auth`.
    private func authenticate(_ frame: [UInt8], socket: WebSocket) {
        // The same one-pass read as every command; anything but an `auth` with a token is refused alike.
        let read: CommandFrame
        do {
            read = try CommandFrame.decode(frame)
        } catch {
            // An `auth` with a bad field (an offset that is no integer, or negative) gets that field's error so the
            // client can fix it; the type is looked up again only on this failure path.
            if case .invalid(let id, let reason) = error, (try? JSONFields.parse(frame).string("type")) == "auth" {
                return sendNow(ServerFrames.error(id: id, reason))
            }
            return refuseUnauthenticated(id: error.id)
        }
        guard case .auth(let command) = read.command, let token = command.token else { return refuseUnauthenticated(id: read.id) }
        switch endpoint.authenticator.identify(token: token) {
        case .success(let identity):
            adopt(identity)
            if command.offset != nil { resumeAfter = command.offset }
            if let authTimer { socket.loop.cancel(authTimer) }
            sendNow(ServerFrames.ok(id: read.id, result: ["userId": identity.userId, "deviceId": identity.deviceId]))
            register()
        case .failure(let error):
            socket.logAuthenticationFailure(reason: error.code)
            sendNow(ServerFrames.error(id: read.id, GatewayError(.tokenInvalid, "\(error.code): \(error.message)")))
            socket.close(code: GatewayCloseCode.authenticationFailed, reason: "authentication failed")
        }
    }

    private func refuseUnauthenticated(id: String?) {
        sendNow(ServerFrames.error(id: id, GatewayError(.unauthenticated, "send {\"type\":\"auth\",\"id\":…,\"token\":…} first")))
    }

    private func register() {
        registered = true
        link?.toHub(.connect(self, resumeAfter: resumeAfter))
    }

    private func sendNow(_ frame: [UInt8]) {
        frame.withUnsafeBytes { socket?.send(opcode: .text, payload: $0) }
    }

    /// Writes a frame from the hub into the socket's queue (socket loop, from the link's outbox); behind a replay
    /// that is still draining it waits its turn, and live bytes piling up there past `websocket.max_outbound_bytes`
    /// mean the reader is too slow for live traffic (1013).
    func deliver(_ frame: [UInt8]) {
        guard let socket else { return }
        guard backlogHead < backlog.count else { return frame.withUnsafeBytes { socket.send(opcode: .text, payload: $0) } }
        queueBehindReplay(frame, socket: socket)
    }

    /// The same for a frame the hub sent to many sockets of this loop: its bytes are shared by their queues.
    func deliver(_ message: WebSocketBroadcast) {
        guard let socket else { return }
        guard backlogHead < backlog.count else { return socket.send(message) }
        queueBehindReplay(message.payload, socket: socket)
    }

    private func queueBehindReplay(_ frame: [UInt8], socket: WebSocket) {
        backlog.append(frame)
        liveBytesInBacklog += frame.count
        if liveBytesInBacklog > socket.maxOutboundBytes {
            dropBacklog()
            socket.closeSlowConsumer()
        }
    }

    /// Queues a resume's replay (socket loop, from the link's outbox) and sends what fits under the low-water mark.
    func deliverReplay(_ frames: [[UInt8]]) {
        backlog.append(contentsOf: frames)
        pumpBacklog()
    }

    /// Sends replayed frames while the socket's queue is below a low-water mark (a quarter of the outbound limit);
    /// the rest waits for `webSocketDidDrain`. A fast reader gets the whole replay, however large; the slow-consumer
    /// rule only ever sees a quarter-full queue plus one frame.
    private func pumpBacklog() {
        guard let socket else { return dropBacklog() }
        let lowWater = socket.maxOutboundBytes / 4
        while backlogHead < backlog.count && socket.bufferedAmount < lowWater {
            let frame = backlog[backlogHead]
            backlog[backlogHead] = []
            backlogHead += 1
            frame.withUnsafeBytes { socket.send(opcode: .text, payload: $0) }
        }
        if backlogHead == backlog.count { dropBacklog() } else { socket.notifyWhenDrained() }
    }

    private func dropBacklog() {
        backlog = []
        backlogHead = 0
        liveBytesInBacklog = 0
    }

    func webSocketDidDrain(_ socket: WebSocket) {
        if backlogHead < backlog.count { pumpBacklog() }
    }

    /// Closes the socket on the hub's request (socket loop, from the link's outbox, after the frames before it).
    func closeNow(code: UInt16, reason: String) { socket?.close(code: code, reason: reason) }

    // MARK: GatewayClient (hub loop)

    func send(_ frame: [UInt8]) { link?.toSocket(.frame(self, frame)) }

    func sendEvent(_ frame: [UInt8], committedAt: Int) { link?.toSocket(.event(self, frame, committedAt: committedAt)) }

    func sendReplay(_ frames: [[UInt8]]) { link?.toSocket(.replay(self, frames)) }

    func close(code: UInt16, reason: String) { link?.toSocket(.close(self, code: code, reason: reason)) }
}
