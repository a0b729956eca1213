import GatewayProtocol

/// Friend requests by hex code: send, list, accept, reject, cancel. Each change is a durable event in both users'
/// logs (`friend_request`, `friend_request_accepted|rejected|cancelled`); accepting makes the two contacts. The rules
/// are `FriendRequestMachine`'s; this gathers what it needs and commits what it decides.
extension GatewayHub {
    public enum FriendRequestAction: String, Sendable {
        case accept, reject, cancel
    }

    /// Pending requests of a user, oldest first.
    public struct FriendRequestLists: Encodable, Sendable, Equatable {
        public var incoming: [FriendRequestData]
        public var outgoing: [FriendRequestData]
    }

    func friendRequestData(_ r: FriendRequestRecord) -> FriendRequestData {
        FriendRequestData(requestId: r.id, from: userRef(r.fromUserId), to: userRef(r.toUserId), state: r.state.rawValue,
                          createdAt: r.createdAt, resolvedAt: r.resolvedAt)
    }

    /// Sends a friend request to the user with `hexCode` (8 hex characters, any case).
    /// Errors: `user_not_found` (no such code, or no such sender), `self_request`, `already_friends`,
    /// `request_already_sent`. When the other user already asked the sender, that request is accepted instead.
    public func sendFriendRequest(from userId: String, toHexCode hexCode: String,
                                  completion: @escaping (Result<FriendRequestData, GatewayError>) -> Void) {
        sendFriendRequest(from: userId, toHexCode: hexCode, lookedUp: false, completion: completion)
    }

    /// `lookedUp`: the store was asked for the code (and its user loaded): a miss in memory means no such user.
    private func sendFriendRequest(from userId: String, toHexCode hexCode: String, lookedUp: Bool,
                                   completion: @escaping (Result<FriendRequestData, GatewayError>) -> Void) {
        let code = hexCode.lowercased()
        if usersByHexCode[code] == nil && !lookedUp {
            let store = self.store
            return load(read: { try store.userId(hexCode: code) }) { [self] found in
                switch found {
                case .failure(let error): completion(.failure(error))
                case .success(let target):
                    withUsers([userId] + (target.map { [$0] } ?? []), failed: { completion(.failure($0)) }) { [self] in
                        sendFriendRequest(from: userId, toHexCode: code, lookedUp: true, completion: completion)
                    }
                }
            }
        }
        do {
            try requireUser(userId)
            let owner = usersByHexCode[code]
            let pair = FriendRequestMachine.Pair(
                target: owner, areContacts: owner.map { areContacts(userId, $0) } ?? false,
                outgoingPending: owner.map { relations.pendingRequests[RelationshipState.pairKey(userId, $0)] != nil } ?? false,
                incomingPending: owner.flatMap { relations.pendingRequests[RelationshipState.pairKey($0, userId)] })
            let request: FriendRequestRecord
            switch FriendRequestMachine.send(from: userId, hexCode: hexCode, pair: pair, id: "frq_" + randomToken(), now: clock.now()) {
            case .failure(let refusal): throw GatewayError(refusal)
            case .success(.acceptIncoming(let reverse)):
                return answerFriendRequest(userId: userId, requestId: reverse, action: .accept, completion: completion)
            case .success(.create(let record)): request = record
            }
            let target = request.toUserId
            relations.put(request)
            let data = friendRequestData(request)
            let payload = encode(data)
            commit([.upsertFriendRequest(request)],
                   events: [PendingEvent(userId: target, type: .friendRequest, data: payload, pushable: .friendRequest(data)),
                            PendingEvent(userId: userId, type: .friendRequest, data: payload, pushable: .friendRequest(data))]) { [self] outcome in
                if case .failure = outcome {
                    // Not stored: forget it, or the pair would stay blocked by a request nobody can see.
                    relations.removeFriendRequest(request.id)
                }
                completion(outcome.map { _ in data })
            }
        } catch {
            completion(.failure(error as? GatewayError ?? GatewayError(.internalError, "\(error)")))
        }
    }

    /// Pending requests to and from `userId`.
    public func friendRequests(of userId: String) -> FriendRequestLists {
        let pending = relations.friendRequests(of: userId).filter { $0.state == .pending }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        return FriendRequestLists(incoming: pending.filter { $0.toUserId == userId }.map(friendRequestData),
                                  outgoing: pending.filter { $0.fromUserId == userId }.map(friendRequestData))
    }

    /// The recipient accepts or rejects; the sender cancels. Errors: `request_not_found` (unknown, or not this
    /// user's to answer), `request_already_resolved`. Accepting creates the contact on both sides (reactivating a
    /// removed one) and both see each other's presence at once.
    public func answerFriendRequest(userId: String, requestId: String, action: FriendRequestAction,
                                    completion: @escaping (Result<FriendRequestData, GatewayError>) -> Void) {
        guard let request = relations.friendRequests[requestId] else {
            return completion(.failure(GatewayError(.notFound(requestId: requestId, action))))
        }
        let (_, checked) = FriendRequestMachine.transition(request, .answer(action, by: userId), now: clock.now())
        for case .refuse(let refusal) in checked { return completion(.failure(GatewayError(refusal))) }
        let (a, b) = (request.fromUserId, request.toUserId)
        // Both sides' contacts and names are needed (GatewayHub+Loading).
        guard loaded([a, b], failed: { completion(.failure($0)) }, retry: { [self] in
            answerFriendRequest(userId: userId, requestId: requestId, action: action, completion: completion)
        }) else { return }
        var writes: [StoreWrite] = []
        var events: [PendingEvent] = []
        var answered = request
        for step in FriendRequestMachine.transition(request, .answer(action, by: userId), now: clock.now()).1 {
            switch step {
            case .makeContacts(let x, let y):
                // Marks this request (and any reverse one) accepted, with its events.
                (writes, events) = contactCreation(x, y)
                answered = relations.friendRequests[requestId] ?? request
            case .commitResolution(let resolved, let event):
                relations.put(resolved)
                answered = resolved
                writes = [.upsertFriendRequest(resolved)]
                let payload = encode(friendRequestData(resolved))
                events = [PendingEvent(userId: a, type: event.logType, data: payload), PendingEvent(userId: b, type: event.logType, data: payload)]
            case .refuse(let refusal): return completion(.failure(GatewayError(refusal)))
            }
        }
        let data = friendRequestData(answered)
        commit(writes, events: events) { [self] outcome in
            if case .success = outcome, action == .accept { exchangePresence(a, b) }
            completion(outcome.map { _ in data })
        }
    }
}
