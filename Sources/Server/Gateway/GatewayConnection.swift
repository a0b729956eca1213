import Auth
import EventLoop
import FoundationEssentials
import Gateway
import GatewayProtocol
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
    private var loop: EventLoop?
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
        loop = socket.loop
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
        let hub = endpoint.hub
        endpoint.scheduler.execute { [self] in hub.handle(frame, from: self) }
    }

    func webSocketDidClose(_ socket: WebSocket, code: UInt16) {
        if let authTimer { socket.loop.cancel(authTimer) }
        guard registered else { return }
        let hub = endpoint.hub
        endpoint.scheduler.execute { [self] in hub.disconnect(self) }
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
            sendNow(ServerFrames.error(id: command.id, GatewayError(.tokenInvalid, "\(error.code): \(error.message)")))
            socket.close(code: GatewayCloseCode.authenticationFailed, reason: "authentication failed")
        }
    }

    private func register() {
        registered = true
        let (hub, resume) = (endpoint.hub, resumeAfter)
        endpoint.scheduler.execute { [self] in hub.connect(self, resumeAfter: resume) }
    }

    private func sendNow(_ frame: [UInt8]) {
        frame.withUnsafeBytes { socket?.send(opcode: .text, payload: $0) }
    }

    // MARK: GatewayClient (hub loop)

    func send(_ frame: [UInt8]) {
        loop?.execute { [self] in
            frame.withUnsafeBytes { socket?.send(opcode: .text, payload: $0) }
        }
    }

    func close(code: UInt16, reason: String) {
        loop?.execute { [self] in socket?.close(code: code, reason: reason) }
    }
}
