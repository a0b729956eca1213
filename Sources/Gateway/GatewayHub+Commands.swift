import FoundationEssentials
import GatewayProtocol

/// Client commands: one JSON text frame in, exactly one `reply` out (ok or a stable error code), the connection
/// stays usable whatever the input.
extension GatewayHub {
    public func handle(_ frame: [UInt8], from client: GatewayClient) {
        // Behind the device's connect and its user's earlier work while the user is read (GatewayHub+Loading).
        guard cache.ready([client.userId]) else {
            return withUsers(
                [client.userId],
                failed: { error in
                    client.send(ServerFrames.error(id: nil, error))
                    client.commandAnswered()
                }
            ) { [self] in
                handleLoaded(frame, from: client)
            }
        }
        handleLoaded(frame, from: client)
    }

    private func handleLoaded(_ frame: [UInt8], from client: GatewayClient) {
        guard let state = state(of: client) else { return client.commandAnswered() }  // its device is gone
        // One strict parse per frame, and the typed command read from it by hand (ids checked as they are read).
        let read: CommandFrame
        do {
            read = try CommandFrame.decode(frame)
        } catch {
            switch error {
            case .unreadable(let id, let error):
                metrics.commandErrors.add(1, ordering: .relaxed)
                client.send(ServerFrames.error(id: id, error))
                client.commandAnswered()
            case .invalid(let id, let error):
                metrics.commands.add(1, ordering: .relaxed)
                Reply(client: client, id: id, metrics: metrics).fail(error)
            }
            return
        }
        let reply = Reply(client: client, id: read.id, metrics: metrics)
        metrics.commands.add(1, ordering: .relaxed)
        let named = namedUsers(in: .object(read.fields.members), type: read.type, by: client.userId)
        guard named.allSatisfy({ cache.isLoaded($0) }) else {
            return withUsers(named, failed: reply.fail) { [self] in run(read.command, state: state, reply: reply) }
        }
        run(read.command, state: state, reply: reply)
    }

    private func run(_ command: ClientCommand, state: ClientState, reply: Reply) {
        do {
            try dispatch(command, state: state, reply: reply)
        } catch let error as GatewayError {
            reply.fail(error)
        } catch {
            reply.fail(GatewayError(.internalError, "\(error)"))
        }
    }

    private func dispatch(_ command: ClientCommand, state: ClientState, reply: Reply) throws {
        let client = state.client
        switch command {
        case .ack(let command):
            // An ack ahead of the log would count events not yet written as seen (and suppress their pushes).
            let latest = latestOffsets[client.userId] ?? 0
            guard command.offset >= 0, command.offset <= latest else {
                throw GatewayError(
                    .invalidField,
                    "offset \(command.offset) is outside your log: acknowledge 0 to \(latest), the newest offset you received"
                )
            }
            state.ackedOffset = max(state.ackedOffset, command.offset)
            let key = DeviceKey(userId: client.userId, deviceId: client.deviceId)
            if let acked = devices[key]?.ackedOffset, acked < command.offset {
                devices[key]?.ackedOffset = command.offset
            }
            deliveryAcknowledged(client, upTo: command.offset)
            queueWrite([.setDeviceAck(userId: client.userId, deviceId: client.deviceId, offset: command.offset)]) { _ in
            }
            reply.ok(Empty())
        case .sendMessage(let command):
            sendMessage(command, from: client, reply: reply)
        case .history(let command):
            history(command, for: client, reply: reply)
        case .unreadCounts:
            unreadCounts(for: client, reply: reply)
        case .markRead(let command):
            markRead(command, for: client, reply: reply)
        case .setPresence(let command):
            guard command.status == "online" || command.status == "away" else {
                throw GatewayError(.invalidField, "status must be \"online\" or \"away\"")
            }
            state.away = command.status == "away"
            updatePresence(of: client.userId)
            reply.ok(presenceData(of: client.userId))
        case .appState(let command):
            setAppState(command.state, of: client)
            reply.ok(Empty())
        case .presence:
            let list = activeContacts(of: client.userId).sorted().map { presenceData(of: $0) }
            reply.ok(["contacts": list])
        case .sessionAttach(let command):
            attach(sessionId: command.sessionId, client: client, reply: reply)
        case .sessionGet(let command):
            sessionData(command.sessionId, for: client.userId, reply: reply)
        case .sessionList:
            let list = sessions.of(client.userId).sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map(
                Self.sessionData)
            reply.ok(["sessions": list])
        case .approve(let command):
            answer(requestId: command.requestId, approve: true, client: client, reply: reply)
        case .deny(let command):
            answer(requestId: command.requestId, approve: false, client: client, reply: reply)
        case .approvalsPending:
            let pending = pendingApprovals(of: client.userId)
            reply.ok(PendingApprovals(approvals: pending, badge: pending.count))
        case .pushRegister(let command):
            try registerPushToken(command, client: client, reply: reply)
        case .pushUnregister(let command):
            unregisterPushToken(kind: command.kind, sessionId: command.sessionId, client: client, reply: reply)
        case .notificationSettings:
            reply.ok(notificationSettings[client.userId] ?? NotificationSettings())
        case .setNotificationSettings(let command):
            updateNotificationSettings(command, client: client, reply: reply)
        case .relationship(let command):
            try relationshipCommand(command, client: client, reply: reply)
        case .auth:
            throw GatewayError(.alreadyAuthenticated, "this connection is already authenticated")
        }
    }
}

/// Answers one command exactly once.
/// `@unchecked Sendable`: used on the hub thread; Sendable so it can ride along a read done off-thread.
final class Reply: @unchecked Sendable {
    let client: GatewayClient
    let id: String
    private let metrics: GatewayMetrics
    private var answered = false

    init(client: GatewayClient, id: String, metrics: GatewayMetrics) {
        self.client = client; self.id = id; self.metrics = metrics
        metrics.commandsInFlight.add(1, ordering: .relaxed)
    }

    // A reply dropped unanswered (a bug) must not hold a place under the pending-command bounds forever.
    deinit {
        if !answered {
            metrics.commandsInFlight.subtract(1, ordering: .relaxed)
            client.commandAnswered()
        }
    }

    func ok(_ result: some Encodable) {
        guard !answered else { return }
        answered = true
        metrics.commandsInFlight.subtract(1, ordering: .relaxed)
        client.commandAnswered()
        client.send(ServerFrames.ok(id: id, result: result))
    }

    /// The same for a result that writes its own JSON (a direct message's reply): no dynamic cast.
    func ok(_ result: some Encodable & JSONWritable) {
        guard !answered else { return }
        answered = true
        metrics.commandsInFlight.subtract(1, ordering: .relaxed)
        client.commandAnswered()
        client.send(ServerFrames.ok(id: id, result: result))
    }

    func fail(_ error: GatewayError) {
        guard !answered else { return }
        answered = true
        metrics.commandsInFlight.subtract(1, ordering: .relaxed)
        client.commandAnswered()
        metrics.commandErrors.add(1, ordering: .relaxed)
        client.send(ServerFrames.error(id: id, error))
    }
}

struct Empty: Encodable {}

struct PendingApprovals: Encodable {
    var approvals: [ApprovalData]
    var badge: Int
}
