import GatewayProtocol

/// Friend requests by hex code: send, list, accept, reject, cancel. Each change is a durable event in both users'
/// logs (`friend_request`, `friend_request_accepted|rejected|cancelled`); accepting makes the two contacts.
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
            guard let target = usersByHexCode[code] else {
                throw GatewayError(.userNotFound, "no user with hex code \"\(hexCode)\"")
            }
            guard target != userId else { throw GatewayError(.selfRequest, "you cannot send a friend request to yourself") }
            guard !areContacts(userId, target) else { throw GatewayError(.alreadyFriends, "you are already contacts") }
            guard relations.pendingRequests[RelationshipState.pairKey(userId, target)] == nil else {
                throw GatewayError(.requestAlreadySent, "a friend request to this user is already pending")
            }
            if let reverse = relations.pendingRequests[RelationshipState.pairKey(target, userId)] {
                return answerFriendRequest(userId: userId, requestId: reverse, action: .accept, completion: completion)
            }
            let request = FriendRequestRecord(id: "frq_" + randomToken(), fromUserId: userId, toUserId: target, createdAt: clock.now())
            relations.put(request)
            let data = friendRequestData(request)
            let payload = encode(data)
            commit([.upsertFriendRequest(request)],
                   events: [PendingEvent(userId: target, type: "friend_request", data: payload, pushable: .friendRequest(data)),
                            PendingEvent(userId: userId, type: "friend_request", data: payload, pushable: .friendRequest(data))]) { [self] outcome in
                if case .failure = outcome {
                    // Not stored: forget it, or the pair would stay blocked by a request nobody can see.
                    relations.friendRequests[request.id] = nil
                    relations.pendingRequests[RelationshipState.pairKey(userId, target)] = nil
                }
                completion(outcome.map { _ in data })
            }
        } catch {
            completion(.failure(error as? GatewayError ?? GatewayError(.internalError, "\(error)")))
        }
    }

    /// Pending requests to and from `userId`.
    public func friendRequests(of userId: String) -> FriendRequestLists {
        let pending = relations.friendRequests.values.filter { $0.state == .pending }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        return FriendRequestLists(incoming: pending.filter { $0.toUserId == userId }.map(friendRequestData),
                                  outgoing: pending.filter { $0.fromUserId == userId }.map(friendRequestData))
    }

    /// The recipient accepts or rejects; the sender cancels. Errors: `request_not_found` (unknown, or not this
    /// user's to answer), `request_already_resolved`. Accepting creates the contact on both sides (reactivating a
    /// removed one) and both see each other's presence at once.
    public func answerFriendRequest(userId: String, requestId: String, action: FriendRequestAction,
                                    completion: @escaping (Result<FriendRequestData, GatewayError>) -> Void) {
        guard var request = relations.friendRequests[requestId],
              action == .cancel ? request.fromUserId == userId : request.toUserId == userId else {
            return completion(.failure(GatewayError(.requestNotFound, "no friend request \"\(requestId)\" for you to \(action.rawValue)")))
        }
        guard request.state == .pending else {
            return completion(.failure(GatewayError(.requestAlreadyResolved, "friend request \"\(requestId)\" was already \(request.state.rawValue)")))
        }
        let (a, b) = (request.fromUserId, request.toUserId)
        // Both sides' contacts and names are needed (GatewayHub+Loading).
        guard loaded([a, b], failed: { completion(.failure($0)) }, retry: { [self] in
            answerFriendRequest(userId: userId, requestId: requestId, action: action, completion: completion)
        }) else { return }
        var writes: [StoreWrite] = []
        var events: [PendingEvent] = []
        if action == .accept {
            // Marks this request (and any reverse one) accepted, with its events.
            (writes, events) = contactCreation(a, b)
            request = relations.friendRequests[requestId] ?? request
        } else {
            request.state = action == .reject ? .rejected : .cancelled
            request.resolvedAt = clock.now()
            relations.put(request)
            writes = [.upsertFriendRequest(request)]
            let payload = encode(friendRequestData(request))
            let type = "friend_request_" + request.state.rawValue
            events = [PendingEvent(userId: a, type: type, data: payload), PendingEvent(userId: b, type: type, data: payload)]
        }
        let data = friendRequestData(request)
        commit(writes, events: events) { [self] outcome in
            if case .success = outcome, action == .accept { exchangePresence(a, b) }
            completion(outcome.map { _ in data })
        }
    }
}
