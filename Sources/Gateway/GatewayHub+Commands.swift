import FoundationEssentials
import GatewayProtocol

/// Client commands: one JSON text frame in, exactly one `reply` out (ok or a stable error code), the connection
/// stays usable whatever the input.
extension GatewayHub {
    public func handle(_ frame: [UInt8], from client: GatewayClient) {
        // Behind the device's connect and its user's earlier work while the user is read (GatewayHub+Loading).
        guard cache.ready([client.userId]) else {
            return withUsers([client.userId], failed: { client.send(ServerFrames.error(id: nil, $0)) }) { [self] in
                handleLoaded(frame, from: client)
            }
        }
        handleLoaded(frame, from: client)
    }

    private func handleLoaded(_ frame: [UInt8], from client: GatewayClient) {
        guard let state = state(of: client) else { return }
        // One strict parse per frame; the envelope and the body are both read from the parsed value.
        let data: JSONValue
        let envelope: CommandEnvelope
        do {
            data = try StrictJSONDecoder.parse(frame)
        } catch {
            metrics.commandErrors.add(1, ordering: .relaxed)
            client.send(ServerFrames.error(id: nil, describe(error, whole: true)))
            return
        }
        do {
            envelope = try decoder.decode(CommandEnvelope.self, from: data)
        } catch {
            metrics.commandErrors.add(1, ordering: .relaxed)
            client.send(ServerFrames.error(id: envelopeID(data), describe(error, whole: true)))
            return
        }
        let reply = Reply(client: client, id: envelope.id, metrics: metrics)
        metrics.commands.add(1, ordering: .relaxed)
        let named = namedUsers(in: data, type: envelope.type, by: client.userId)
        guard named.allSatisfy({ cache.isLoaded($0) }) else {
            return withUsers(named, failed: reply.fail) { [self] in run(envelope.type, data: data, state: state, reply: reply) }
        }
        run(envelope.type, data: data, state: state, reply: reply)
    }

    private func run(_ type: String, data: JSONValue, state: ClientState, reply: Reply) {
        do {
            try dispatch(type, data: data, state: state, reply: reply)
        } catch let error as GatewayError {
            reply.fail(error)
        } catch {
            reply.fail(describe(error, whole: false))
        }
    }

    private func dispatch(_ type: String, data: JSONValue, state: ClientState, reply: Reply) throws {
        let client = state.client
        // Every field naming a user, session or group follows the one id grammar, in every command.
        try Identifier.checkFields(of: data)
        switch type {
        case "ack":
            let command = try decoder.decode(AckCommand.self, from: data)
            // An ack ahead of the log would count events not yet written as seen (and suppress their pushes).
            let latest = latestOffsets[client.userId] ?? 0
            guard command.offset >= 0, command.offset <= latest else {
                throw GatewayError(.invalidField, "offset \(command.offset) is outside your log: acknowledge 0 to \(latest), the newest offset you received")
            }
            state.ackedOffset = max(state.ackedOffset, command.offset)
            queueWrite([.setDeviceAck(userId: client.userId, deviceId: client.deviceId, offset: command.offset)]) { _ in }
            reply.ok(Empty())
        case "send_message":
            sendMessage(try decoder.decode(SendMessageCommand.self, from: data), from: client, reply: reply)
        case "history":
            history(try decoder.decode(HistoryCommand.self, from: data), for: client, reply: reply)
        case "unread_counts":
            unreadCounts(for: client, reply: reply)
        case "mark_read":
            markRead(try decoder.decode(MarkReadCommand.self, from: data), for: client, reply: reply)
        case "set_presence":
            let command = try decoder.decode(SetPresenceCommand.self, from: data)
            guard command.status == "online" || command.status == "away" else {
                throw GatewayError(.invalidField, "status must be \"online\" or \"away\"")
            }
            state.away = command.status == "away"
            updatePresence(of: client.userId)
            reply.ok(presenceData(of: client.userId))
        case "presence":
            let list = activeContacts(of: client.userId).sorted().map { presenceData(of: $0) }
            reply.ok(["contacts": list])
        case "session_attach":
            let command = try decoder.decode(SessionCommand.self, from: data)
            attach(sessionId: command.sessionId, client: client, reply: reply)
        case "session_get":
            let command = try decoder.decode(SessionCommand.self, from: data)
            sessionData(command.sessionId, for: client.userId, reply: reply)
        case "session_list":
            let list = sessions.values.filter { $0.userId == client.userId }.sorted { $0.createdAt < $1.createdAt }.map(Self.sessionData)
            reply.ok(["sessions": list])
        case "approve", "deny":
            let command = try decoder.decode(ApprovalAnswerCommand.self, from: data)
            answer(requestId: command.requestId, approve: type == "approve", client: client, reply: reply)
        case "approvals_pending":
            let pending = approvals.values.filter { $0.userId == client.userId && $0.state == .pending }
                .sorted { $0.createdAt < $1.createdAt }.map(Self.approvalData)
            reply.ok(PendingApprovals(approvals: pending, badge: pending.count))
        case "push_register":
            try registerPushToken(try decoder.decode(PushRegisterCommand.self, from: data), client: client, reply: reply)
        case "push_unregister":
            let command = try decoder.decode(PushUnregisterCommand.self, from: data)
            unregisterPushToken(kind: command.kind, sessionId: command.sessionId, client: client, reply: reply)
        case "notification_settings":
            reply.ok(notificationSettings[client.userId] ?? NotificationSettings())
        case "set_notification_settings":
            updateNotificationSettings(try decoder.decode(NotificationSettingsCommand.self, from: data), client: client, reply: reply)
        case _ where Self.relationshipCommandTypes.contains(type):
            try relationshipCommand(type, data: data, client: client, reply: reply)
        case "auth":
            throw GatewayError(.alreadyAuthenticated, "this connection is already authenticated")
        default:
            throw GatewayError(.unknownType, "unknown command type \"\(type)\"")
        }
    }

    /// Turns a JSON decoding failure into the field-naming error a client developer needs.
    public func describe(_ error: Error, whole: Bool) -> GatewayError {
        guard let decoding = error as? DecodingError else {
            return GatewayError(.internalError, "\(error)")
        }
        func path(_ context: DecodingError.Context, _ key: CodingKey? = nil) -> String {
            (context.codingPath + (key.map { [$0] } ?? [])).map(\.stringValue).joined(separator: ".")
        }
        switch decoding {
        case .keyNotFound(let key, let context):
            return GatewayError(.missingField, "missing field \"\(path(context, key))\"")
        case .typeMismatch(let type, let context):
            return GatewayError(.invalidField, "field \"\(path(context))\" must be of type \(type)")
        case .valueNotFound(let type, let context):
            return GatewayError(.invalidField, "field \"\(path(context))\" must be a \(type), not null")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty || whole {
                return GatewayError(.invalidJSON, "the frame is not a JSON object")
            }
            return GatewayError(.invalidField, "field \"\(path(context))\" is invalid")
        @unknown default:
            return GatewayError(.invalidJSON, "the frame could not be read")
        }
    }

    /// The command id, when the frame is an object with a string `id` but otherwise unusable.
    private func envelopeID(_ data: JSONValue) -> String? {
        struct OnlyID: Decodable { var id: String }
        return try? decoder.decode(OnlyID.self, from: data).id
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

    // A reply dropped unanswered (a bug) must not hold a place under the pending-command bound forever.
    deinit { if !answered { metrics.commandsInFlight.subtract(1, ordering: .relaxed) } }

    func ok(_ result: some Encodable) {
        guard !answered else { return }
        answered = true
        metrics.commandsInFlight.subtract(1, ordering: .relaxed)
        client.send(ServerFrames.ok(id: id, result: result))
    }

    func fail(_ error: GatewayError) {
        guard !answered else { return }
        answered = true
        metrics.commandsInFlight.subtract(1, ordering: .relaxed)
        metrics.commandErrors.add(1, ordering: .relaxed)
        client.send(ServerFrames.error(id: id, error))
    }
}

struct Empty: Encodable {}

struct PendingApprovals: Encodable {
    var approvals: [ApprovalData]
    var badge: Int
}
