import GatewayProtocol

/// Sessions (an agent run, a conversation) and which device is active in each: a device that acts in a session
/// takes it over and the previous device is told to let go (`session_handoff`).
extension GatewayHub {
    static func sessionData(_ s: SessionRecord) -> SessionData {
        SessionData(
            sessionId: s.id, title: s.title, state: s.state.rawValue,
            activeClient: s.activeClient.map {
                ActiveClientData(clientType: $0.clientType, deviceId: $0.deviceId, lastActivityAt: $0.lastActivityAt)
            },
            createdAt: s.createdAt)
    }

    /// The session `sessionId` of `userId` (nil: of whoever owns it), with its user loaded (`withSession`), or the
    /// error to answer with: `session_not_found` also for another user's session.
    func withOwnSession(
        _ sessionId: String, of userId: String?, _ body: @escaping (Result<SessionRecord, GatewayError>) -> Void
    ) {
        withSession(sessionId, of: userId) { found in
            body(
                found.flatMap { session in
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

    /// Takes the session over through `SessionMachine`; the active client is the store's decision (compare-and-set on
    /// the previous one). When another node changed it first, the session is corrected from the store's row and the
    /// attach runs again, so the handoff names the device the store had.
    private func attach(_ session: SessionRecord, client: GatewayClient, reply: Reply, attempt: Int = 1) {
        let current = sessions[session.id] ?? session
        let (writes, events, refused) = activity(in: current, by: client)
        if refused { return reply.fail(GatewayError(.sessionEnded, "session \"\(session.id)\" has ended")) }
        commit(
            writes, events: events,
            onConflict: { [self] conflict in
                guard case .sessionChanged(let stored) = conflict, attempt < Self.decisionAttempts else {
                    return reply.fail(GatewayError(.storageFailed, "could not store the change: \(conflict)"))
                }
                storeChanged(stored, sessionId: session.id)
                attach(sessions[session.id] ?? session, client: client, reply: reply, attempt: attempt + 1)
            }
        ) { [self] outcome in
            switch outcome {
            case .success: reply.ok(Self.sessionData(sessions[session.id] ?? session))
            case .failure(let error): reply.fail(error)
            }
        }
    }

    /// Marks `client` as the session's active device (memory now, the store's compare-and-set in the returned
    /// writes). When another device was active, the handoff event for the user's log comes with it (every device
    /// sees it; the previous one knows it must let go). Nothing for a session not in memory or ended. Caller commits.
    func activity(in sessionId: String, by client: GatewayClient) -> ([StoreWrite], [PendingEvent]) {
        guard let session = sessions[sessionId] else { return ([], []) }
        let (writes, events, _) = activity(in: session, by: client)
        return (writes, events)
    }

    private func activity(in session: SessionRecord, by client: GatewayClient) -> (
        [StoreWrite], [PendingEvent], refused: Bool
    ) {
        let device = DeviceRef(deviceId: client.deviceId, clientType: client.clientType)
        let (next, actions) = SessionMachine.transition(session, .activity(by: device), now: clock.now())
        sessions[session.id] = next
        var writes: [StoreWrite] = []
        var events: [PendingEvent] = []
        var refused = false
        for action in actions {
            switch action {
            case .commitActiveClient(let expected, let new):
                writes.append(.setSessionActiveClient(sessionId: session.id, expected: expected, new: new))
            case .handoff(let handoff):
                events.append(
                    PendingEvent(
                        userId: session.userId, type: .sessionHandoff, data: encode(handoff),
                        pushable: .handoff(handoff)))
            case .commitEnd:  // produced by `end` only
                break
            case .refuseEnded:
                refused = true
            }
        }
        return (writes, events, refused)
    }

    /// The store reported the session as it really is (another node changed it): memory takes the store's row.
    func storeChanged(_ stored: SessionRecord?, sessionId: String) {
        guard let session = sessions[sessionId] ?? stored else { return }
        sessions[sessionId] = SessionMachine.transition(session, .storeChanged(stored), now: clock.now()).0
    }

    // MARK: Backend side

    /// Creates (or returns the existing) session for a user; `session_created` goes to the user's devices.
    /// An existing id answers with that session as it is (an ended one stays ended, also after a restart).
    public func createSession(
        id: String?, userId: String, title: String?, completion: @escaping (Result<SessionData, GatewayError>) -> Void
    ) {
        guard let id else { return createSession(newId: nil, userId: userId, title: title, completion: completion) }
        withSession(id) { [self] found in
            switch found {
            case .failure(let error): completion(.failure(error))
            case .success(nil): createSession(newId: id, userId: userId, title: title, completion: completion)
            case .success(let existing?):
                guard existing.userId == userId else {
                    return completion(
                        .failure(GatewayError(.invalidField, "session \"\(id)\" belongs to another user")))
                }
                completion(.success(Self.sessionData(existing)))
            }
        }
    }

    private func createSession(
        newId id: String?, userId: String, title: String?,
        completion: @escaping (Result<SessionData, GatewayError>) -> Void
    ) {
        // The user's open sessions are read with it: loaded first, so the new session is held with them.
        guard
            loaded(
                [userId], failed: { completion(.failure($0)) },
                retry: { [self] in
                    createSession(newId: id, userId: userId, title: title, completion: completion)
                })
        else { return }
        if let id, let existing = sessions[id] {  // created while this request was reading the store
            guard existing.userId == userId else {
                return completion(.failure(GatewayError(.invalidField, "session \"\(id)\" belongs to another user")))
            }
            return completion(.success(Self.sessionData(existing)))
        }
        var writes: [StoreWrite] = []
        if users[userId] == nil { writes.append(.insertUser(createUser(id: userId, displayName: nil))) }
        let sessionId = id ?? "ses_" + randomToken()
        let session = SessionRecord(id: sessionId, userId: userId, title: title, createdAt: clock.now())
        sessions[sessionId] = session
        writes.append(.upsertSession(session))
        let data = Self.sessionData(session)
        commit(writes, events: [PendingEvent(userId: userId, type: .sessionCreated, data: encode(data))]) { outcome in
            completion(outcome.map { _ in data })
        }
    }

    /// A backend event in a session (progress, status, question, completion) streamed to the user's devices.
    /// `notification`: the backend asks for an alert (pushed like a message, `PushRule`).
    public func postSessionEvent(
        sessionId: String, kind: String, payload: JSONValue?, notification: BackendNotification? = nil,
        completion: @escaping (Result<Int64, GatewayError>) -> Void
    ) {
        withOwnSession(sessionId, of: nil) { [self] found in
            guard case .success(let session) = found else { return completion(.failure(found.error!)) }
            postSessionEvent(session, kind: kind, payload: payload, notification: notification, completion: completion)
        }
    }

    private func postSessionEvent(
        _ session: SessionRecord, kind: String, payload: JSONValue?, notification: BackendNotification?,
        completion: @escaping (Result<Int64, GatewayError>) -> Void
    ) {
        let sessionId = session.id
        guard session.state == .active else {
            return completion(.failure(GatewayError(.sessionEnded, "session \"\(sessionId)\" has ended")))
        }
        let data = encode(SessionEventData(sessionId: sessionId, kind: kind, payload: payload))
        let pushable = notification.map {
            PushableEvent.notification($0, ids: ["sessionId": sessionId], deepLinkPath: "session/\(sessionId)")
        }
        commit([], events: [PendingEvent(userId: session.userId, type: .sessionEvent, data: data, pushable: pushable)])
        { outcome in
            completion(outcome.map { $0.last?.offset ?? 0 })
        }
    }

    public func endSession(sessionId: String, completion: @escaping (Result<SessionData, GatewayError>) -> Void) {
        withOwnSession(sessionId, of: nil) { [self] found in
            guard case .success(let session) = found else { return completion(.failure(found.error!)) }
            endSession(session, completion: completion)
        }
    }

    /// Ending is the store's decision too (only an active session ends): when another node ended it first, the
    /// answer is the session as the store has it, and no second `session_ended` is appended.
    private func endSession(_ found: SessionRecord, completion: @escaping (Result<SessionData, GatewayError>) -> Void) {
        let (next, actions) = SessionMachine.transition(sessions[found.id] ?? found, .end, now: clock.now())
        sessions[found.id] = next
        guard case .commitEnd(let ended)? = actions.first else { return completion(.success(Self.sessionData(next))) }
        let data = Self.sessionData(ended)
        commit(
            [.endSession(sessionId: ended.id, endedAt: ended.endedAt ?? clock.now())],
            events: [PendingEvent(userId: ended.userId, type: .sessionEnded, data: encode(data))],
            onConflict: { [self] conflict in
                guard case .sessionChanged(let stored?) = conflict, stored.state == .ended else {
                    return completion(.failure(GatewayError(.storageFailed, "could not end the session: \(conflict)")))
                }
                storeChanged(stored, sessionId: stored.id)
                completion(.success(Self.sessionData(stored)))
            }
        ) { outcome in
            completion(outcome.map { _ in data })
        }
    }

    /// A session held in memory (those of loaded users: their open ones, and others read since).
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
