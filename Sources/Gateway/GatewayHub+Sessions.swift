import GatewayProtocol

/// Sessions (an agent run, a conversation) and which device is active in each: a device that acts in a session
/// takes it over and the previous device is told to let go (`session_handoff`).
extension GatewayHub {
    static func sessionData(_ s: SessionRecord) -> SessionData {
        SessionData(sessionId: s.id, title: s.title, state: s.state,
                    activeClient: s.activeClient.map { ActiveClientData(clientType: $0.clientType, deviceId: $0.deviceId, lastActivityAt: $0.lastActivityAt) },
                    createdAt: s.createdAt)
    }

    func sessionData(_ sessionId: String, for userId: String) throws -> SessionData {
        guard let session = sessions[sessionId], session.userId == userId else {
            throw GatewayError(.sessionNotFound, "no session \"\(sessionId)\"")
        }
        return Self.sessionData(session)
    }

    /// The explicit form of taking a session over.
    func attach(sessionId: String, client: GatewayClient, reply: Reply) throws {
        guard let session = sessions[sessionId], session.userId == client.userId else {
            throw GatewayError(.sessionNotFound, "no session \"\(sessionId)\"")
        }
        guard session.state == "active" else { throw GatewayError(.sessionEnded, "session \"\(sessionId)\" has ended") }
        let (writes, events) = activity(in: sessionId, by: client)
        commit(writes, events: events) { [self] outcome in
            switch outcome {
            case .success: reply.ok(Self.sessionData(sessions[sessionId] ?? session))
            case .failure(let error): reply.fail(error)
            }
        }
    }

    /// Marks `client` as the session's active device. When another device was active, returns the handoff event
    /// for the user's log (every device sees it; the previous one knows it must let go). Caller commits.
    func activity(in sessionId: String, by client: GatewayClient) -> ([StoreWrite], [PendingEvent]) {
        guard var session = sessions[sessionId] else { return ([], []) }
        let now = clock.now()
        let previous = session.activeClient
        session.activeClient = ActiveClient(clientType: client.clientType, deviceId: client.deviceId, lastActivityAt: now)
        sessions[sessionId] = session
        var events: [PendingEvent] = []
        if let previous, previous.deviceId != client.deviceId {
            let handoff = SessionHandoffData(sessionId: sessionId,
                                             handedOffTo: DeviceRef(deviceId: client.deviceId, clientType: client.clientType),
                                             previous: DeviceRef(deviceId: previous.deviceId, clientType: previous.clientType))
            events.append(PendingEvent(userId: session.userId, type: "session_handoff", data: encode(handoff)))
        }
        return ([.upsertSession(session)], events)
    }

    // MARK: Backend side

    /// Creates (or returns the existing) session for a user; `session_created` goes to the user's devices.
    public func createSession(id: String?, userId: String, title: String?, completion: @escaping (Result<SessionData, GatewayError>) -> Void) {
        if let id, let existing = sessions[id] {
            guard existing.userId == userId else {
                return completion(.failure(GatewayError(.invalidField, "session \"\(id)\" belongs to another user")))
            }
            return completion(.success(Self.sessionData(existing)))
        }
        var writes: [StoreWrite] = []
        if users[userId] == nil { writes.append(.upsertUser(createUser(id: userId, displayName: nil))) }
        let sessionId = id ?? "ses_" + randomToken()
        let session = SessionRecord(id: sessionId, userId: userId, title: title, createdAt: clock.now())
        sessions[sessionId] = session
        writes.append(.upsertSession(session))
        let data = Self.sessionData(session)
        commit(writes, events: [PendingEvent(userId: userId, type: "session_created", data: encode(data))]) { outcome in
            completion(outcome.map { _ in data })
        }
    }

    /// A backend event in a session (progress, status, question, completion) streamed to the user's devices.
    public func postSessionEvent(sessionId: String, kind: String, payload: JSONValue?, completion: @escaping (Result<Int64, GatewayError>) -> Void) {
        guard let session = sessions[sessionId] else {
            return completion(.failure(GatewayError(.sessionNotFound, "no session \"\(sessionId)\"")))
        }
        guard session.state == "active" else {
            return completion(.failure(GatewayError(.sessionEnded, "session \"\(sessionId)\" has ended")))
        }
        let data = encode(SessionEventData(sessionId: sessionId, kind: kind, payload: payload))
        commit([], events: [PendingEvent(userId: session.userId, type: "session_event", data: data)]) { outcome in
            completion(outcome.map { $0.last?.offset ?? 0 })
        }
    }

    public func endSession(sessionId: String, completion: @escaping (Result<SessionData, GatewayError>) -> Void) {
        guard var session = sessions[sessionId] else {
            return completion(.failure(GatewayError(.sessionNotFound, "no session \"\(sessionId)\"")))
        }
        guard session.state == "active" else { return completion(.success(Self.sessionData(session))) }
        session.state = "ended"
        session.endedAt = clock.now()
        sessions[sessionId] = session
        let data = Self.sessionData(session)
        commit([.upsertSession(session)], events: [PendingEvent(userId: session.userId, type: "session_ended", data: encode(data))]) { outcome in
            completion(outcome.map { _ in data })
        }
    }

    public func session(_ id: String) -> SessionData? { sessions[id].map(Self.sessionData) }

    /// 32 random hex characters (ids that must not be guessable).
    public func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }
}

public struct SessionEventData: Codable, Sendable, Equatable {
    public var sessionId: String
    /// `progress`, `status`, `question`, `completion` (or any app-defined kind).
    public var kind: String
    public var payload: JSONValue?
}
