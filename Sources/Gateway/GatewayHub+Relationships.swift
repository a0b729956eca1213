import GatewayProtocol

/// Shared pieces of the relationship flows: how users are shown, making two users contacts inside a larger
/// commit, rate windows on the hub clock, and the small validators every flow uses.
extension GatewayHub {
    /// A user as every relationship payload shows them (display name, hex code as the fallback).
    func userRef(_ id: String) -> UserRef {
        UserRef(userId: id, hexCode: users[id]?.hexCode ?? "", displayName: users[id]?.displayName)
    }

    /// The writes and events that make `a` and `b` contacts (both directions; a removed contact is reactivated and
    /// keeps its creation time), and that mark any pending friend request between them accepted. Updates memory;
    /// the caller commits and then calls `exchangePresence`.
    func contactCreation(_ a: String, _ b: String) -> ([StoreWrite], [PendingEvent]) {
        let (writes, events) = (try? contactChange(a, b, .add(missingUser: nil)).get()) ?? ([], [])
        let (accepted, acceptedEvents) = acceptPendingRequests(a, b)
        return (writes + accepted, events + acceptedEvents)
    }

    /// Feeds `ContactMachine` the pair's rows: the refusal's error, or the writes and events of the change (none when
    /// nothing changes). Updates memory; the caller commits (and exchanges presence after an add).
    func contactChange(_ a: String, _ b: String, _ input: ContactMachine.Input) -> Result<([StoreWrite], [PendingEvent]), GatewayError> {
        let state = ContactMachine.State(a: a, b: b, aToB: contacts[a]?[b], bToA: contacts[b]?[a])
        var writes: [StoreWrite] = []
        var events: [PendingEvent] = []
        for action in ContactMachine.transition(state, input, now: clock.now()).1 {
            switch action {
            case .refuse(let refusal): return .failure(GatewayError(refusal))
            case .clearPauses: writes += clearPauses(a, b)
            case .exchangePresence: break   // the caller's, after its commit
            case .commit(let rows, let event):
                for row in rows {
                    contacts[row.userId, default: [:]][row.contactId] = row
                    writes.append(.upsertContact(row))
                }
                for (x, y) in [(a, b), (b, a)] {
                    switch event {
                    case .added:
                        let data = contactData(y)
                        events.append(PendingEvent(userId: x, type: event.logType, data: encode(data), pushable: .contactAdded(data)))
                    case .removed:
                        events.append(PendingEvent(userId: x, type: event.logType, data: encode(["userId": y]), pushable: .contactRemoved(userId: y)))
                    }
                }
            }
        }
        return .success((writes, events))
    }

    /// The writes and events that mark any pending friend request between `a` and `b` accepted (they became contacts).
    func acceptPendingRequests(_ a: String, _ b: String) -> ([StoreWrite], [PendingEvent]) {
        let now = clock.now()
        var writes: [StoreWrite] = []
        var events: [PendingEvent] = []
        for (from, to) in [(a, b), (b, a)] {
            guard let id = relations.pendingRequests[RelationshipState.pairKey(from, to)],
                  let request = relations.friendRequests[id] else { continue }
            for case .commitResolution(let accepted, let event) in FriendRequestMachine.transition(request, .becameContacts, now: now).1 {
                relations.put(accepted)
                writes.append(.upsertFriendRequest(accepted))
                let typed = friendRequestData(accepted), data = encode(typed)
                events += [PendingEvent(userId: from, type: event.logType, data: data, pushable: .friendRequest(typed)),
                           PendingEvent(userId: to, type: event.logType, data: data, pushable: .friendRequest(typed))]
            }
        }
        return (writes, events)
    }

    /// After two users became (or again are) connected: each sees the other's presence at once.
    func exchangePresence(_ a: String, _ b: String) {
        guard areContacts(a, b), !relations.isPaused(a, b) else { return }
        for (x, y) in [(a, b), (b, a)] {
            deliverEphemeral(to: x, frame: ServerFrames.event(type: "presence", offset: nil, timestamp: clock.now(),
                                                               data: encode(presenceData(of: y))))
        }
    }

    func requireUser(_ id: String) throws {
        guard users[id] != nil else { throw GatewayError(.userNotFound, "no user \"\(id)\"") }
    }

    /// Roles are 1–32 characters of `[a-z0-9_-]`.
    static func validRole(_ role: String) -> Bool {
        (1...32).contains(role.utf8.count)
            && role.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D }
    }

    /// App-defined event names: 1–64 characters, no control characters.
    static func validEventName(_ name: String) -> Bool {
        (1...64).contains(name.count) && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Random characters from `alphabet` (system CSPRNG).
    func randomCode(length: Int, alphabet: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = Array(alphabet)
        return String((0..<length).map { _ in characters[Int.random(in: 0..<characters.count, using: &generator)] })
    }

    /// Turns a commit outcome into the caller's result.
    static func finish<T>(_ completion: @escaping (Result<T, GatewayError>) -> Void, _ value: @escaping () -> T)
        -> (Result<[StoredEvent], GatewayError>) -> Void {
        { outcome in completion(outcome.map { _ in value() }) }
    }
}

/// Reply helpers for results computed through a completion.
extension Reply {
    func complete<T: Encodable>(_ result: Result<T, GatewayError>) {
        switch result {
        case .success(let value): ok(value)
        case .failure(let error): fail(error)
        }
    }
}
