import Auth
import EventLoop
import FoundationEssentials
import Gateway
import GatewayProtocol
import JSON
import WebSocketCodec

/// One client socket of the gateway endpoint: the bridge between its WebSocket (on an I/O loop) and the hub (on the
/// hub loop). Frames from the hub are handed to the socket's loop in order; commands go to the hub in order.
///
/// `@unchecked Sendable`: `socket` and the auth state are touched only on the socket's loop; the identity is
/// written once before the hub first sees this object (the hub learns of it through `execute`, which orders memory).
final class GatewayConnection: WebSocketHandler, GatewayClient, @unchecked Sendable {
    private let endpoint: GatewayEndpoint
    private var identity: ClientIdentity?
    private var resumeAfter: Int64?
    private weak var socket: WebSocket?
    /// The queues to and from the hub for this socket's loop (set when the socket opens).
    private var link: HubLink?
    private var authTimer: TimerID?
    private var registered = false

    var userId: String { identity?.userId ?? "" }
    var deviceId: String { identity?.deviceId ?? "" }
    var clientType: String { identity?.clientType ?? "" }

    init(endpoint: GatewayEndpoint, identity: ClientIdentity?, resumeAfter: Int64?) {
        self.endpoint = endpoint
        self.identity = identity
        self.resumeAfter = resumeAfter
    }

    // MARK: WebSocketHandler (socket loop)

    func webSocketDidOpen(_ socket: WebSocket) {
        self.socket = socket
        link = endpoint.link(for: socket.loop)
        if identity != nil {
            register()
        } else {
            authTimer = socket.loop.schedule(afterMilliseconds: endpoint.authTimeoutMs) { [weak self] in
                guard let self, self.identity == nil else { return }
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
        guard identity != nil else {
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
        if let authTimer { socket.loop.cancel(authTimer) }
        guard registered else { return }
        link?.toHub(.disconnect(self))
    }

    /// The first frame of an unauthenticated socket must be `auth`.
    private func authenticate(_ frame: [UInt8], socket: WebSocket) {
        struct Auth: Decodable { var id: String; var type: String; var token: String?; var offset: Int64? }
        guard let command = try? JSONDecoder().decode(Auth.self, from: Data(frame)), command.type == "auth", let token = command.token else {
            let id = (try? JSONDecoder().decode(CommandEnvelope.self, from: Data(frame)))?.id
            sendNow(ServerFrames.error(id: id, GatewayError(.unauthenticated, "send {\"type\":\"auth\",\"id\":…,\"token\":…} first")))
            return
        }
        switch endpoint.authenticator.identify(token: token) {
        case .success(let identity):
            self.identity = identity
            if command.offset != nil { resumeAfter = command.offset }
            if let authTimer { socket.loop.cancel(authTimer) }
            sendNow(ServerFrames.ok(id: command.id, result: ["userId": identity.userId, "deviceId": identity.deviceId]))
            register()
        case .failure(let error):
            socket.logAuthenticationFailure(reason: error.code)
            sendNow(ServerFrames.error(id: command.id, GatewayError(.tokenInvalid, "\(error.code): \(error.message)")))
            socket.close(code: GatewayCloseCode.authenticationFailed, reason: "authentication failed")
        }
    }

    private func register() {
        registered = true
        link?.toHub(.connect(self, resumeAfter: resumeAfter))
    }

    private func sendNow(_ frame: [UInt8]) {
        frame.withUnsafeBytes { socket?.send(opcode: .text, payload: $0) }
    }

    /// Writes a frame from the hub into the socket's queue (socket loop, from the link's outbox).
    func deliver(_ frame: [UInt8]) { sendNow(frame) }

    /// Closes the socket on the hub's request (socket loop, from the link's outbox, after the frames before it).
    func closeNow(code: UInt16, reason: String) { socket?.close(code: code, reason: reason) }

    // MARK: GatewayClient (hub loop)

    func send(_ frame: [UInt8]) { link?.toSocket(.frame(self, frame)) }

    func close(code: UInt16, reason: String) { link?.toSocket(.close(self, code: code, reason: reason)) }
}
