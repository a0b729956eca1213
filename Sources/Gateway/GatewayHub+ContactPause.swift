import GatewayProtocol

/// Pausing and resuming a contact. While either side has paused, Switchboard stops everything that flows over the
/// contact in both directions: presence (no live changes, not listed by `presence`), direct messages and
/// `send_event` pings (refused with `contact_paused`). History, the contact list and groups are not affected.
/// Each change is a durable event in both users' logs; only the side that paused can resume its pause. The rules are
/// `ContactPauseMachine`'s; this gathers the pair's pauses and commits what it decides.
extension GatewayHub {
    /// The active contacts of a user with their pause state, oldest first.
    public func contactList(of userId: String) -> [ContactStateData] {
        (contacts[userId] ?? [:]).values.filter(\.active).sorted { ($0.createdAt, $0.contactId) < ($1.createdAt, $1.contactId) }
            .map { contactState(userId, $0.contactId) }
    }

    func contactState(_ me: String, _ other: String) -> ContactStateData {
        let byMe = relations.pauses[me]?[other] != nil
        let byThem = relations.pauses[other]?[me] != nil
        return ContactStateData(user: userRef(other), createdAt: contacts[me]?[other]?.createdAt ?? 0,
                                paused: byMe || byThem, pausedByMe: byMe, pausedByThem: byThem)
    }

    /// `userId` pauses its contact `contactId` (idempotent). Errors: `not_a_contact`.
    /// Both users get `contact_paused`; answers with the contact's state as `userId` sees it.
    public func pauseContact(userId: String, contactId: String, completion: @escaping (Result<ContactStateData, GatewayError>) -> Void) {
        changePause(userId, contactId, .pause(by: userId, contact: contactId), completion)
    }

    /// Lifts `userId`'s own pause (idempotent; the other side's pause, if any, stays). Errors: `not_a_contact`.
    /// Both users get `contact_resumed`; when nothing pauses the contact any more, presence flows again at once.
    public func resumeContact(userId: String, contactId: String, completion: @escaping (Result<ContactStateData, GatewayError>) -> Void) {
        changePause(userId, contactId, .resume, completion)
    }

    /// Feeds `ContactPauseMachine` the pair's pauses and commits what it decides.
    private func changePause(_ userId: String, _ contactId: String, _ input: ContactPauseMachine.Input,
                             _ completion: @escaping (Result<ContactStateData, GatewayError>) -> Void) {
        let state = ContactPauseMachine.State(byMe: relations.pauses[userId]?[contactId], byThem: relations.pauses[contactId]?[userId] != nil)
        let now = clock.now()
        let (next, actions) = ContactPauseMachine.transition(state, input, isContact: contacts[userId]?[contactId]?.active == true, now: now)
        var writes: [StoreWrite] = []
        var events: [PendingEvent] = []
        var presenceAgain = false
        for action in actions {
            switch action {
            case .refuseNotAContact:
                return completion(.failure(GatewayError(.notAContact, "\"\(contactId)\" is not your contact")))
            case .commitPause(let pause, let event, let paused):
                writes = [.upsertContactPause(pause)]
                events = pauseEvents(event, by: userId, other: contactId, paused: paused, at: now)
            case .commitResume(let event, let paused):
                writes = [.deleteContactPause(userId: userId, contactId: contactId)]
                events = pauseEvents(event, by: userId, other: contactId, paused: paused, at: now)
            case .exchangePresence:
                presenceAgain = true
            }
        }
        guard !writes.isEmpty else { return completion(.success(contactState(userId, contactId))) }   // nothing changed
        relations.setPause(next.byMe, by: userId, on: contactId)
        commit(writes, events: events) { [self] outcome in
            if case .success = outcome, presenceAgain { exchangePresence(userId, contactId) }
            completion(outcome.map { _ in contactState(userId, contactId) })
        }
    }

    /// Removes the pauses between two users (on contact removal, so a later reconnection starts unpaused).
    func clearPauses(_ a: String, _ b: String) -> [StoreWrite] {
        var writes: [StoreWrite] = []
        for (x, y) in [(a, b), (b, a)] where relations.pauses[x]?[y] != nil {
            relations.setPause(nil, by: x, on: y)
            writes.append(.deleteContactPause(userId: x, contactId: y))
        }
        return writes
    }

    private func pauseEvents(_ event: ContactPauseMachine.Event, by actor: String, other: String, paused: Bool, at: Int64) -> [PendingEvent] {
        let type = event.logType
        return [PendingEvent(userId: actor, type: type, data: encode(ContactPauseEventData(user: userRef(other), by: actor, paused: paused, at: at))),
                PendingEvent(userId: other, type: type, data: encode(ContactPauseEventData(user: userRef(actor), by: actor, paused: paused, at: at)))]
    }

    /// A contact-scoped app event ("ping") from `from` to its contact `to` as a durable `contact_event`.
    /// Errors: `user_not_found`, `not_a_contact`, `contact_paused`, `invalid_field` (name).
    public func sendContactEvent(from: String, to: String, name: String, payload: JSONValue?,
                                 completion: @escaping (Result<SentAt, GatewayError>) -> Void) {
        guard Self.validEventName(name) else { return completion(.failure(GatewayError(.invalidField, "name must have 1 to 64 characters"))) }
        guard users[to] != nil else { return completion(.failure(GatewayError(.userNotFound, "no user \"\(to)\""))) }
        guard areContacts(from, to) else { return completion(.failure(GatewayError(.notAContact, "you can only send events to your contacts"))) }
        guard !relations.isPaused(from, to) else { return completion(.failure(GatewayError(.contactPaused, "this contact is paused"))) }
        let sent = SentAt(sentAt: clock.now())
        let data = encode(ContactEventData(from: userRef(from), name: name, payload: payload, sentAt: sent.sentAt))
        commit([], events: [PendingEvent(userId: to, type: .contactEvent, data: data)], completion: Self.finish(completion) { sent })
    }
}

/// When something was sent (Unix ms).
public struct SentAt: Codable, Sendable, Equatable {
    public var sentAt: Int64
}
