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
    /// Frames waiting for the socket to drain (socket loop only): a resume's replay (or its current part), then any
    /// live frame that arrived behind it (order is kept). `backlogHead` is the next to send.
    private var backlog: [[UInt8]] = []
    private var backlogHead = 0
    /// Live bytes queued behind a replay: past `websocket.max_outbound_bytes` the reader is too slow for live traffic.
    private var liveBytesInBacklog = 0
    /// A replay read in parts has more to come: frames from the hub wait in `behindReplay` until its last part.
    private var replayOpen = false
    /// The next part was asked for and has not arrived.
    private var replayPartAsked = false
    /// Bytes in `backlog` (from `backlogHead`) and here are counted in the endpoint's `replayBacklogBytes`.
    private var behindReplay: [[UInt8]] = []

    /// The identity's fields, stored (the hub reads them several times per command; reading them through the
    /// optional struct copied it, with a retain and release of each string, every time), and only they: the whole
    /// identity beside them cost ≈ 56 bytes per device. Written by `adopt`.
    private(set) var userId = ""
    private(set) var deviceId = ""
    private(set) var clientType = ""
    private(set) var issuedAt: Int64?
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
        issuedAt = identity?.issuedAt
        authenticated = identity != nil
    }

    // MARK: WebSocketHandler (socket loop)

    func webSocketDidOpen(_ socket: WebSocket) {
        self.socket = socket
        link = endpoint.link(for: socket.loop)
        if authenticated {
            guard endpoint.openSocket(self) else { return closeTooManySockets(socket) }
            register()
        } else {
            authTimer = socket.loop.schedule(afterMilliseconds: endpoint.authTimeoutMs) { [weak self] in
                guard let self, !self.authenticated else { return }
                self.socket?.close(
                    code: GatewayCloseCode.authenticationTimeout,
                    reason: "authenticate within \(self.endpoint.authTimeoutMs) ms")
            }
        }
    }

    func webSocket(_ socket: WebSocket, didReceive opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        guard opcode == .text else {
            socket.send(
                text: String(
                    decoding: ServerFrames.error(
                        id: nil, GatewayError(.invalidJSON, "commands are JSON text frames, not binary")), as: UTF8.self
                ))
            return
        }
        guard payload.count <= endpoint.maxCommandBytes else {
            // The command is not parsed, but its id is usually first: a bounded scan recovers it for the reply.
            let id = CommandIDPeek.id(in: payload)
            socket.send(
                text: String(
                    decoding: ServerFrames.error(
                        id: id,
                        GatewayError(
                            .messageTooLarge,
                            "a command may have at most \(endpoint.maxCommandBytes) bytes; this one has \(payload.count)"
                        )), as: UTF8.self))
            return
        }
        let frame = Array(payload)
        guard authenticated else {
            authenticate(frame, socket: socket)
            return
        }
        if let refusal = endpoint.admitCommand(from: self) {
            refuseOverloaded(frame, refusal)
            return
        }
        link?.toHub(.command(self, frame))
    }

    /// At a pending-command bound: answer at once, on this loop, so nothing waits unanswered and nothing grows.
    private func refuseOverloaded(_ frame: [UInt8], _ refusal: GatewayEndpoint.CommandRefusal) {
        // The strict parser only to find the id; a frame without one gets `"id":null` like any unreadable command.
        var id: String?
        if case .object(let members)? = try? JSONValue.parse(frame) { id = members["id"]?.stringValue }
        var error = GatewayError(.overloaded, refusal.message(retryAfterMs: endpoint.overloadRetryAfterMs))
        error.retryAfterMs = endpoint.overloadRetryAfterMs
        sendNow(ServerFrames.error(id: id, error))
    }

    func webSocketDidClose(_ socket: WebSocket, code: UInt16) {
        self.socket = nil
        dropBacklog()
        if let authTimer { socket.loop.cancel(authTimer) }
        guard registered else { return }
        endpoint.closeSocket(self)
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
        guard case .auth(let command) = read.command, let token = command.token else {
            return refuseUnauthenticated(id: read.id)
        }
        switch endpoint.authenticator.identify(token: token) {
        case .success(let identity):
            adopt(identity)
            if command.offset != nil { resumeAfter = command.offset }
            if let authTimer { socket.loop.cancel(authTimer) }
            guard endpoint.openSocket(self) else {
                adopt(nil)  // what follows before the close is not a command of this user
                let limit = endpoint.maxSocketsPerUser
                sendNow(
                    ServerFrames.error(
                        id: read.id, GatewayError(.tooManySockets, GatewayEndpoint.tooManySocketsMessage(limit: limit)))
                )
                return closeTooManySockets(socket)
            }
            sendNow(ServerFrames.ok(id: read.id, result: ["userId": identity.userId, "deviceId": identity.deviceId]))
            register()
        case .failure(let error):
            socket.logAuthenticationFailure(reason: error.code)
            sendNow(ServerFrames.error(id: read.id, GatewayError(.tokenInvalid, "\(error.code): \(error.message)")))
            socket.close(code: GatewayCloseCode.authenticationFailed, reason: "authentication failed")
        }
    }

    private func refuseUnauthenticated(id: String?) {
        sendNow(
            ServerFrames.error(
                id: id, GatewayError(.unauthenticated, "send {\"type\":\"auth\",\"id\":…,\"token\":…} first")))
    }

    /// Counted in its user's sockets (`openSocket`, done by the caller for `auth`) and handed to the hub.
    private func register() {
        registered = true
        link?.toHub(.connect(self, resumeAfter: resumeAfter))
    }

    /// The user's sockets were all taken between the upgrade's check and the open (or it authenticated with `auth`).
    private func closeTooManySockets(_ socket: WebSocket) {
        socket.close(
            code: GatewayCloseCode.tooManySockets, reason: "at most \(endpoint.maxSocketsPerUser) connections per user")
    }

    private func sendNow(_ frame: [UInt8]) {
        frame.withUnsafeBytes { socket?.send(opcode: .text, payload: $0) }
    }

    /// Writes a frame from the hub into the socket's queue (socket loop, from the link's outbox); behind a replay
    /// that is still draining it waits its turn, and live bytes piling up there past `websocket.max_outbound_bytes`
    /// mean the reader is too slow for live traffic (1013).
    func deliver(_ frame: [UInt8]) {
        guard let socket else { return }
        guard replayOpen || backlogHead < backlog.count else {
            return frame.withUnsafeBytes { socket.send(opcode: .text, payload: $0) }
        }
        queueBehindReplay([frame], socket: socket)
    }

    /// The same for a frame the hub sent to many sockets of this loop: its bytes are shared by their queues.
    func deliver(_ message: WebSocketBroadcast) {
        guard let socket else { return }
        guard replayOpen || backlogHead < backlog.count else { return socket.send(message) }
        queueBehindReplay([message.payload], socket: socket)
    }

    /// Live frames (or a catch-up's) behind a replay: after the backlog, or after the parts still to come.
    private func queueBehindReplay(_ frames: [[UInt8]], socket: WebSocket) {
        let bytes = frames.reduce(0) { $0 + $1.count }
        if replayOpen { behindReplay += frames } else { backlog += frames }
        hold(bytes)
        liveBytesInBacklog += bytes
        if liveBytesInBacklog > socket.maxOutboundBytes {
            dropBacklog()
            socket.closeSlowConsumer()
        }
    }

    /// Queues a resume's replay (socket loop, from the link's outbox) and sends what fits under the low-water mark.
    /// During a replay in parts it is a catch-up of events after the replay's end: it waits behind the replay.
    func deliverReplay(_ frames: [[UInt8]]) {
        if replayOpen, let socket { return queueBehindReplay(frames, socket: socket) }
        appendReplay(frames)
        pumpBacklog()
    }

    /// Queues one part of a replay read in parts; after the last, what waited behind the replay follows it.
    func deliverReplayPart(_ frames: [[UInt8]], last: Bool) {
        replayPartAsked = false
        replayOpen = !last
        appendReplay(frames)
        if last {
            backlog += behindReplay
            behindReplay = []
        }
        pumpBacklog()
    }

    private func appendReplay(_ frames: [[UInt8]]) {
        backlog += frames
        hold(frames.reduce(0) { $0 + $1.count })
    }

    /// Sends replayed frames while the socket's queue is below a low-water mark (a quarter of the outbound limit);
    /// the rest waits for `webSocketDidDrain`. A fast reader gets the whole replay, however large; the slow-consumer
    /// rule only ever sees a quarter-full queue plus one frame. Once a part is all in the socket's queue and that has
    /// drained below the mark, the next part is asked for: a reader that stops reading stops the store reads too.
    private func pumpBacklog() {
        guard let socket else { return dropBacklog() }
        let lowWater = socket.maxOutboundBytes / 4
        while backlogHead < backlog.count && socket.bufferedAmount < lowWater {
            let frame = backlog[backlogHead]
            backlog[backlogHead] = []
            backlogHead += 1
            hold(-frame.count)
            frame.withUnsafeBytes { socket.send(opcode: .text, payload: $0) }
        }
        if backlogHead == backlog.count { dropBacklog() }
        guard replayOpen && !replayPartAsked && backlogHead == backlog.count && socket.bufferedAmount < lowWater else {
            if backlogHead < backlog.count || (replayOpen && !replayPartAsked) { socket.notifyWhenDrained() }
            return
        }
        replayPartAsked = true
        link?.toHub(.replayMore(self))
    }

    /// Forgets the backlog (sent, or the socket is gone); what waits behind an open replay stays unless it is gone.
    private func dropBacklog() {
        var released = backlog[backlogHead...].reduce(0) { $0 + $1.count }
        if socket == nil {
            released += behindReplay.reduce(0) { $0 + $1.count }
            behindReplay = []
            replayOpen = false
        }
        hold(-released)
        backlog = []
        backlogHead = 0
        liveBytesInBacklog = behindReplay.reduce(0) { $0 + $1.count }
    }

    private func hold(_ bytes: Int) {
        if bytes != 0 { endpoint.holdReplayBacklog(bytes) }
    }

    func webSocketDidDrain(_ socket: WebSocket) {
        if backlogHead < backlog.count || replayOpen { pumpBacklog() }
    }

    /// Closes the socket on the hub's request (socket loop, from the link's outbox, after the frames before it).
    func closeNow(code: UInt16, reason: String) { socket?.close(code: code, reason: reason) }

    // MARK: GatewayClient (hub loop)

    func send(_ frame: [UInt8]) { link?.toSocket(.frame(self, frame)) }

    func sendEvent(_ frame: [UInt8], committedAt: Int) { link?.toSocket(.event(self, frame, committedAt: committedAt)) }

    func sendReplay(_ frames: [[UInt8]]) { link?.toSocket(.replay(self, frames)) }

    func sendReplayPart(_ frames: [[UInt8]], last: Bool) { link?.toSocket(.replayPart(self, frames, last: last)) }

    /// A socket asks for each next part as it drains (`pumpBacklog`).
    var pacesReplay: Bool { true }

    func commandAnswered() { endpoint.commandAnswered(by: self) }

    func close(code: UInt16, reason: String) { link?.toSocket(.close(self, code: code, reason: reason)) }
}
