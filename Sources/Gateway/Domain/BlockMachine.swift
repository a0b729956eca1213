import GatewayProtocol

/// Blocking as a pure state machine: one side blocks and unblocks its own block (both idempotent); while either side's
/// block stands, nothing can connect the two again (`gate`). Blocking ends what connects them now: the contact
/// (soft-deleted, both pauses cleared: `contact_removed` in both logs, so messages, contact events and presence stop
/// both ways) and any pending friend request between them (the blocker's outgoing one cancelled, its incoming one
/// rejected). No threads, clock or store: the hub commits the block row with a `user_blocked` event in the blocker's
/// log only — the blocked user is never told.
struct BlockMachine {
    /// The blocks between the actor and the other user.
    struct Pair: Equatable {
        /// The actor's own block.
        var byMe: BlockRecord?
        var byThem: Bool
        var blocked: Bool { byMe != nil || byThem }
    }

    enum Input: Equatable {
        /// `by` blocks `other`.
        case block(by: String, other: String)
        case unblock
    }

    /// What connects the two right now, as the hub knows it.
    struct Ties: Equatable {
        var areContacts = false
        /// A friend request between them is pending (either direction).
        var pendingRequest = false
    }

    /// The event a change appends to the actor's log (the other user's log gets nothing).
    enum Event: String, Equatable {
        case blocked = "user_blocked"
        case unblocked = "user_unblocked"
    }

    enum Action: Equatable {
        case refuseSelf
        /// Commit the actor's block row with `user_blocked` in its log.
        case commitBlock(BlockRecord)
        /// Remove the contact in the same batch (`contact_removed` in both logs).
        case endContact
        /// Answer the pending requests between them in the same batch: the actor's own cancelled, the other's rejected.
        case endRequests
        /// Delete the actor's block row with `user_unblocked` in its log.
        case commitUnblock
    }

    static func transition(_ pair: Pair, _ input: Input, ties: Ties, now: Int64) -> (Pair, [Action]) {
        var next = pair
        switch input {
        case .block(let user, let other):
            guard user != other else { return (pair, [.refuseSelf]) }
            guard pair.byMe == nil else { return (pair, []) }
            let block = BlockRecord(userId: user, blockedId: other, createdAt: now)
            next.byMe = block
            return (next, [.commitBlock(block)] + (ties.areContacts ? [.endContact] : []) + (ties.pendingRequest ? [.endRequests] : []))
        case .unblock:
            guard pair.byMe != nil else { return (pair, []) }
            next.byMe = nil
            return (next, [.commitUnblock])
        }
    }

    /// How a new tie (a friend request, a connect code, a contact from the backend) between the actor and the other
    /// user is answered while a block stands.
    enum Gate: Equatable {
        case open
        /// The actor blocked the other: refused with `user_blocked` (the actor knows it blocked).
        case blockedByActor
        /// The other blocked the actor: answered as if nothing were in the way, with nothing stored or delivered, so
        /// the blocked user does not learn of the block from the answer.
        case hiddenFromActor
    }

    static func gate(_ pair: Pair) -> Gate {
        if pair.byMe != nil { return .blockedByActor }
        return pair.byThem ? .hiddenFromActor : .open
    }
}

extension GatewayError {
    /// The actor blocked the other user (`BlockMachine.Gate.blockedByActor`).
    static var youBlocked: GatewayError { GatewayError(.userBlocked, "you blocked this user; unblock them first") }
}
