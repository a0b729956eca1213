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
    /// `request_already_sent`, `rate_limited` (`FriendRequestLimits`: too many misses, or too many requests).
    /// When the other user already asked the sender, that request is accepted instead — also when another node stored
    /// it a moment before this one's. `source` is the device's address group, nil for the server API.
    public func sendFriendRequest(from userId: String, toHexCode hexCode: String, source: String? = nil,
                                  completion: @escaping (Result<FriendRequestData, GatewayError>) -> Void) {
        let code = hexCode.lowercased()
        let limits = FriendRequestLimits(settings.relationships)
        let guesses = limits.misses(by: userId, source: source)
        // Once a guessing counter is full the code is not even looked at, so a right guess is refused too.
        limitAttempt(.ask(guesses), FriendRequestLimits.missesRefused) { [self] refused in
            if let refused { return completion(.failure(refused)) }
            lookUpHexCode(code, sender: userId, failed: { completion(.failure($0)) }) { [self] owner in
                guard let owner else {
                    // An unknown sender is not a guess (`decideFriendRequest` names it).
                    guard users[userId] != nil else { return decideFriendRequest(from: userId, toHexCode: code, completion: completion) }
                    return limitAttempt(.count(guesses), FriendRequestLimits.missesRefused) { refused in
                        completion(.failure(refused ?? GatewayError(FriendRequestMachine.Refusal.userNotFound(hexCode: hexCode))))
                    }
                }
                guard owner != userId else { return decideFriendRequest(from: userId, toHexCode: code, completion: completion) }
                limitAttempt(.count(limits.send(from: userId, to: owner)), FriendRequestLimits.sendsRefused) { [self] refused in
                    if let refused { return completion(.failure(refused)) }
                    // The counters may have answered from another thread: the users are looked up again.
                    lookUpHexCode(code, sender: userId, failed: { completion(.failure($0)) }) { [self] _ in
                        decideFriendRequest(from: userId, toHexCode: code, completion: completion)
                    }
                }
            }
        }
    }

    /// Calls `body` with the owner of `code` (nil when nobody has it) once the owner and the sender are in memory;
    /// a code not in memory is a store read.
    private func lookUpHexCode(_ code: String, sender: String, failed: @escaping (GatewayError) -> Void,
                               _ body: @escaping (String?) -> Void) {
        if let owner = usersByHexCode[code] {
            return withUsers([sender, owner], failed: failed) { [self] in body(usersByHexCode[code]) }
        }
        let store = self.store
        load(read: { try store.userId(hexCode: code) }) { [self] found in
            switch found {
            case .failure(let error): failed(error)
            case .success(let target):
                withUsers([sender] + (target.map { [$0] } ?? []), failed: failed) { [self] in body(usersByHexCode[code]) }
            }
        }
    }

    /// Decides and commits a request to the owner of `code`, who (with the sender) is in memory when there is one.
    private func decideFriendRequest(from userId: String, toHexCode code: String,
                                     completion: @escaping (Result<FriendRequestData, GatewayError>) -> Void) {
        let hexCode = code
        do {
            try requireUser(userId)
            let owner = usersByHexCode[code]
            let pair = FriendRequestMachine.Pair(
                target: owner, areContacts: owner.map { areContacts(userId, $0) } ?? false,
                outgoingPending: owner.map { relations.pendingRequests[RelationshipState.pairKey(userId, $0)] != nil } ?? false,
                incomingPending: owner.flatMap { relations.pendingRequests[RelationshipState.pairKey($0, userId)] },
                gate: owner.map { BlockMachine.gate(relations.blockState(userId, $0)) } ?? .open)
            let request: FriendRequestRecord
            switch FriendRequestMachine.send(from: userId, hexCode: hexCode, pair: pair, id: "frq_" + randomToken(), now: clock.now()) {
            case .failure(let refusal): throw GatewayError(refusal)
            case .success(.acceptIncoming(let reverse)):
                return answerFriendRequest(userId: userId, requestId: reverse, action: .accept, completion: completion)
            case .success(.create(let record)): request = record
            case .success(.pretend(let record)):
                // Blocked by the target: the same answer a sent request gets, and nothing else (docs/PROTOCOL.md, "Blocking").
                return completion(.success(friendRequestData(record)))
            }
            let target = request.toUserId
            relations.put(request)
            let data = friendRequestData(request)
            let payload = encode(data)
            // One pending request per pair is the store's decision: when another node stored this request or the
            // reverse one first, the store's row is taken and the send decided again on it (`request_already_sent`,
            // or the reverse request accepted).
            commit([.createFriendRequest(request)],
                   events: [PendingEvent(userId: target, type: .friendRequest, data: payload, pushable: .friendRequest(data)),
                            PendingEvent(userId: userId, type: .friendRequest, data: payload, pushable: .friendRequest(data))],
                   onConflict: { [self] conflict in
                relations.removeFriendRequest(request.id)
                guard case .friendRequestPending(let current) = conflict else {
                    return completion(.failure(.storageFailed("could not store the change: \(conflict)", cause: conflict)))
                }
                relations.put(FriendRequestMachine.transition(request, .storeDecided(current), now: clock.now()).0)
                decideFriendRequest(from: userId, toHexCode: code, completion: completion)
            }) { [self] outcome in
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
    /// A cancel counts per sender → recipient pair (`FriendRequestLimits`): over the limit it is `rate_limited`.
    public func answerFriendRequest(userId: String, requestId: String, action: FriendRequestAction,
                                    completion: @escaping (Result<FriendRequestData, GatewayError>) -> Void) {
        answerFriendRequest(userId: userId, requestId: requestId, action: action, counted: false, completion: completion)
    }

    /// `counted`: a cancel was already fed to the pair's counter (it is counted once, not again when decided anew).
    private func answerFriendRequest(userId: String, requestId: String, action: FriendRequestAction, counted: Bool,
                                     completion: @escaping (Result<FriendRequestData, GatewayError>) -> Void) {
        guard let request = relations.friendRequests[requestId] else {
            return completion(.failure(GatewayError(.notFound(requestId: requestId, action))))
        }
        let (_, checked) = FriendRequestMachine.transition(request, .answer(action, by: userId), now: clock.now())
        for case .refuse(let refusal) in checked { return completion(.failure(GatewayError(refusal))) }
        if action == .cancel && !counted {
            let counters = FriendRequestLimits(settings.relationships).cancel(from: request.fromUserId, to: request.toUserId)
            return limitAttempt(.count(counters), FriendRequestLimits.sendsRefused) { [self] refused in
                if let refused { return completion(.failure(refused)) }
                answerFriendRequest(userId: userId, requestId: requestId, action: action, counted: true, completion: completion)
            }
        }
        let (a, b) = (request.fromUserId, request.toUserId)
        // Both sides' contacts and names are needed (GatewayHub+Loading).
        guard loaded([a, b], failed: { completion(.failure($0)) }, retry: { [self] in
            answerFriendRequest(userId: userId, requestId: requestId, action: action, counted: counted, completion: completion)
        }) else { return }
        let before = pairMemory(a, b)
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
                writes = [.resolveFriendRequest(resolved)]
                let payload = encode(friendRequestData(resolved))
                events = [PendingEvent(userId: a, type: event.logType, data: payload), PendingEvent(userId: b, type: event.logType, data: payload)]
            case .refuse(let refusal): return completion(.failure(GatewayError(refusal)))
            }
        }
        let data = friendRequestData(answered)
        // Answering only a pending request is the store's decision: when another node answered it first, the
        // store's row is taken and the answer decided again on it (`request_already_resolved`).
        commitPairChange(writes, events: events, before: before, retry: { [self] in
            answerFriendRequest(userId: userId, requestId: requestId, action: action, counted: counted, completion: completion)
        }) { [self] outcome in
            if case .success = outcome, action == .accept { exchangePresence(a, b) }
            completion(outcome.map { _ in data })
        }
    }
}
