import GatewayProtocol

/// Sessions (an agent run, a conversation) and which device is active in each: a device that acts in a session
/// takes it over and the previous device is told to let go (`session_handoff`).
extension GatewayHub {
    static func sessionData(_ s: SessionRecord) -> SessionData {
        SessionData(sessionId: s.id, title: s.title, state: s.state,
                    activeClient: s.activeClient.map { ActiveClientData(clientType: $0.clientType, deviceId: $0.deviceId, lastActivityAt: $0.lastActivityAt) },
                    createdAt: s.createdAt)
    }

    /// The session `sessionId` of `userId` (memory or store), or the error to answer with: `session_not_found` also
    /// for another user's session.
    func withOwnSession(_ sessionId: String, of userId: String?, _ body: @escaping (Result<SessionRecord, GatewayError>) -> Void) {
        withSession(sessionId) { found in
            body(found.flatMap { session in
                guard let session, userId == nil || session.userId == userId else {
                    return .failure(GatewayError(.sessionNotFound, "no session \"\(sessionId)\""))
                }
                return .success(session)
            })
        }
    }

    func sessionData(_ sessionId: String, for userId: String, reply: Reply) {
        withOwnSession(sessionId, of: userId) { found in
            switch found {
            case .success(let session): reply.ok(Self.sessionData(session))
            case .failure(let error): reply.fail(error)
            }
        }
    }

    /// The explicit form of taking a session over.
    func attach(sessionId: String, client: GatewayClient, reply: Reply) {
        withOwnSession(sessionId, of: client.userId) { [self] found in
            switch found {
            case .success(let session): attach(session, client: client, reply: reply)
            case .failure(let error): reply.fail(error)
            }
        }
    }

    private func attach(_ session: SessionRecord, client: GatewayClient, reply: Reply) {
        let sessionId = session.id
        guard session.state == "active" else { return reply.fail(GatewayError(.sessionEnded, "session \"\(sessionId)\" has ended")) }
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
    /// An existing id answers with that session as it is (an ended one stays ended, also after a restart).
    public func createSession(id: String?, userId: String, title: String?, completion: @escaping (Result<SessionData, GatewayError>) -> Void) {
        guard let id else { return createSession(newId: nil, userId: userId, title: title, completion: completion) }
        withSession(id) { [self] found in
            switch found {
            case .failure(let error): completion(.failure(error))
            case .success(nil): createSession(newId: id, userId: userId, title: title, completion: completion)
            case .success(let existing?):
                guard existing.userId == userId else {
                    return completion(.failure(GatewayError(.invalidField, "session \"\(id)\" belongs to another user")))
                }
                completion(.success(Self.sessionData(existing)))
            }
        }
    }

    private func createSession(newId id: String?, userId: String, title: String?, completion: @escaping (Result<SessionData, GatewayError>) -> Void) {
        if let id, let existing = sessions[id] {     // created while this request was reading the store
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
        withOwnSession(sessionId, of: nil) { [self] found in
            guard case .success(let session) = found else { return completion(.failure(found.error!)) }
            postSessionEvent(session, kind: kind, payload: payload, completion: completion)
        }
    }

    private func postSessionEvent(_ session: SessionRecord, kind: String, payload: JSONValue?, completion: @escaping (Result<Int64, GatewayError>) -> Void) {
        let sessionId = session.id
        guard session.state == "active" else {
            return completion(.failure(GatewayError(.sessionEnded, "session \"\(sessionId)\" has ended")))
        }
        let data = encode(SessionEventData(sessionId: sessionId, kind: kind, payload: payload))
        commit([], events: [PendingEvent(userId: session.userId, type: "session_event", data: data)]) { outcome in
            completion(outcome.map { $0.last?.offset ?? 0 })
        }
    }

    public func endSession(sessionId: String, completion: @escaping (Result<SessionData, GatewayError>) -> Void) {
        withOwnSession(sessionId, of: nil) { [self] found in
            guard case .success(let session) = found else { return completion(.failure(found.error!)) }
            endSession(session, completion: completion)
        }
    }

    private func endSession(_ found: SessionRecord, completion: @escaping (Result<SessionData, GatewayError>) -> Void) {
        var session = found
        let sessionId = session.id
        guard session.state == "active" else { return completion(.success(Self.sessionData(session))) }
        session.state = "ended"
        session.endedAt = clock.now()
        sessions[sessionId] = session
        let data = Self.sessionData(session)
        commit([.upsertSession(session)], events: [PendingEvent(userId: session.userId, type: "session_ended", data: encode(data))]) { outcome in
            completion(outcome.map { _ in data })
        }
    }

    /// A session held in memory (open ones, and ended ones seen since start).
    public func session(_ id: String) -> SessionData? { sessions[id].map(Self.sessionData) }

    /// Backend: a session in any state (`.success(nil)` when there is none).
    public func session(_ id: String, completion: @escaping (Result<SessionData?, GatewayError>) -> Void) {
        withSession(id) { completion($0.map { $0.map(Self.sessionData) }) }
    }

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

extension Result {
    /// The failure, if any.
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
