import GatewayProtocol

/// One friend request as a pure state machine: `pending --accept--> accepted` (by making the two users contacts),
/// `pending --reject--> rejected` (the recipient), `pending --cancel--> cancelled` (the sender), and nothing after that.
/// A pending request also ends `accepted` when the pair becomes contacts another way (a connect code, the backend, the
/// reverse request). Sending is a decision on what the hub knows of the pair; the store makes it again in the commit
/// (one pending request per pair, an answer only to a pending request), and its row comes back as `storeDecided`.
/// No threads, clock or store.
struct FriendRequestMachine {
    typealias Answer = GatewayHub.FriendRequestAction

    enum Refusal: Error, Equatable {
        case userNotFound(hexCode: String)
        case selfRequest
        /// The sender blocked the code's owner.
        case blocked
        case alreadyFriends
        case requestAlreadySent
        /// Unknown, or not this user's to answer (the answer does not tell which).
        case notFound(requestId: String, Answer)
        case alreadyResolved(requestId: String, FriendRequestState)
    }

    /// What the hub knows of the sender and the owner of the hex code.
    struct Pair: Equatable {
        /// The code's owner; nil when no user has it.
        var target: String?
        var areContacts = false
        /// A request from the sender to the target is pending.
        var outgoingPending = false
        /// The target's pending request to the sender, if any.
        var incomingPending: String?
        /// How a block between the two answers (`BlockMachine.gate`, the sender as the actor).
        var gate: BlockMachine.Gate = .open
    }

    enum Send: Equatable {
        /// Commit the new request with a `friend_request` event in both logs.
        case create(FriendRequestRecord)
        /// The target already asked the sender: that request is accepted instead.
        case acceptIncoming(requestId: String)
        /// The target blocked the sender: answer with this request as if it were sent, storing and delivering nothing.
        case pretend(FriendRequestRecord)
    }

    /// The rules for sending, in the order clients see them.
    static func send(from sender: String, hexCode: String, pair: Pair, id: String, now: Int64) -> Result<Send, Refusal> {
        guard let target = pair.target else { return .failure(.userNotFound(hexCode: hexCode)) }
        guard target != sender else { return .failure(.selfRequest) }
        switch pair.gate {
        case .open: break
        case .blockedByActor: return .failure(.blocked)
        case .hiddenFromActor: return .success(.pretend(FriendRequestRecord(id: id, fromUserId: sender, toUserId: target, createdAt: now)))
        }
        guard !pair.areContacts else { return .failure(.alreadyFriends) }
        guard !pair.outgoingPending else { return .failure(.requestAlreadySent) }
        if let incoming = pair.incomingPending { return .success(.acceptIncoming(requestId: incoming)) }
        return .success(.create(FriendRequestRecord(id: id, fromUserId: sender, toUserId: target, createdAt: now)))
    }

    enum Input: Equatable {
        /// The recipient accepts or rejects, the sender cancels.
        case answer(Answer, by: String)
        /// The two users became contacts (this request accepted, or another way).
        case becameContacts
        /// The store refused this node's decision on the pair (`StoreConflict.friendRequestPending` /
        /// `friendRequestResolved`: another node sent or answered first): its row replaces what was known, and the
        /// hub decides again on it — a send then finds the request pending, an answer finds it resolved.
        case storeDecided(FriendRequestRecord)
    }

    /// The event a resolution appends to both users' logs.
    enum Event: String, Equatable {
        case accepted = "friend_request_accepted"
        case rejected = "friend_request_rejected"
        case cancelled = "friend_request_cancelled"
    }

    enum Action: Equatable {
        /// Make the two users contacts; that resolves this request (`becameContacts`) in the same batch.
        case makeContacts(String, String)
        /// Commit the resolved request with `event` in both users' logs.
        case commitResolution(FriendRequestRecord, Event)
        case refuse(Refusal)
    }

    static func transition(_ request: FriendRequestRecord, _ input: Input, now: Int64) -> (FriendRequestRecord, [Action]) {
        switch input {
        case .answer(let answer, let user):
            guard answer == .cancel ? request.fromUserId == user : request.toUserId == user else {
                return (request, [.refuse(.notFound(requestId: request.id, answer))])
            }
            guard request.state == .pending else { return (request, [.refuse(.alreadyResolved(requestId: request.id, request.state))]) }
            switch answer {
            case .accept: return (request, [.makeContacts(request.fromUserId, request.toUserId)])
            case .reject: return resolve(request, .rejected, .rejected, now: now)
            case .cancel: return resolve(request, .cancelled, .cancelled, now: now)
            }
        case .becameContacts:
            guard request.state == .pending else { return (request, []) }
            return resolve(request, .accepted, .accepted, now: now)
        case .storeDecided(let stored):
            return (stored, [])
        }
    }

    private static func resolve(_ request: FriendRequestRecord, _ state: FriendRequestState, _ event: Event,
                                now: Int64) -> (FriendRequestRecord, [Action]) {
        var resolved = request
        resolved.state = state
        resolved.resolvedAt = now
        return (resolved, [.commitResolution(resolved, event)])
    }
}

extension GatewayError {
    /// The wire error for a refused friend request.
    init(_ refusal: FriendRequestMachine.Refusal) {
        switch refusal {
        case .userNotFound(let hexCode): self.init(.userNotFound, "no user with hex code \"\(hexCode)\"")
        case .selfRequest: self.init(.selfRequest, "you cannot send a friend request to yourself")
        case .blocked: self = .youBlocked
        case .alreadyFriends: self.init(.alreadyFriends, "you are already contacts")
        case .requestAlreadySent: self.init(.requestAlreadySent, "a friend request to this user is already pending")
        case .notFound(let id, let answer): self.init(.requestNotFound, "no friend request \"\(id)\" for you to \(answer.rawValue)")
        case .alreadyResolved(let id, let state): self.init(.requestAlreadyResolved, "friend request \"\(id)\" was already \(state.rawValue)")
        }
    }
}
