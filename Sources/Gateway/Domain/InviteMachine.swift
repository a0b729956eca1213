import GatewayProtocol

/// One invite's redemption as a pure state machine: `pending --redeem--> used`, once, before its expiry, while its
/// inviter is still an active member of the group, by someone not already a member; `revoked` and `used` refuse every
/// redeem. No threads, clock or store.
///
/// The inviter's membership is checked at redemption rather than by revoking her invites when she goes: a member who
/// left or was removed cannot walk back in with an invite she made for herself, nor let anyone else in with one, and
/// no store write has to find her invites. Her unexpired invites work again if she is made a member again.
///
/// Redeeming once is a decision several nodes race on: the coordinator commits `StoreWrite.redeemInvite` with the
/// membership, and when the store reports the invite already used (`storeRedeemed`), takes the store's invite and
/// refuses; when the join fails for another reason (`joinFailed`), the invite is pending again.
struct InviteMachine {
    enum Input: Equatable {
        /// `by` redeems; `isMember`: already an active member of the invite's group; `inviterIsMember`: the invite's
        /// inviter is an active member of it now.
        case redeem(by: String, isMember: Bool, inviterIsMember: Bool)
        /// The store refused the redemption: another node redeemed first (its invite, nil when it has none).
        case storeRedeemed(InviteRecord?)
        /// The join was not stored (the group is full, storage failed…).
        case joinFailed
    }

    enum Refusal: Error, Equatable {
        case used
        case expired(at: Int64)
        /// The inviter is no longer an active member: the invite stays unused and cannot be redeemed by anyone.
        case inviterGone
        /// The invite stays unused.
        case alreadyMember
    }

    enum Action: Equatable {
        /// Join `usedBy` to the group with the invite's role, committing the used invite (`redeemInvite`) in the same batch.
        case join(InviteRecord)
        case refuse(Refusal)
    }

    static func transition(_ invite: InviteRecord, _ input: Input, now: Int64) -> (InviteRecord, [Action]) {
        switch (invite.state, input) {
        case (.pending, .redeem(let user, let isMember, let inviterIsMember)):
            guard now < invite.expiresAt else { return (invite, [.refuse(.expired(at: invite.expiresAt))]) }
            guard inviterIsMember else { return (invite, [.refuse(.inviterGone)]) }
            guard !isMember else { return (invite, [.refuse(.alreadyMember)]) }
            var used = invite
            used.state = .used
            used.usedBy = user
            used.usedAt = now
            return (used, [.join(used)])
        case (_, .redeem):
            return (invite, [.refuse(.used)])
        case (_, .storeRedeemed(let stored)):
            return (stored ?? unused(invite), [.refuse(.used)])
        case (.used, .joinFailed):
            return (unused(invite), [])
        case (_, .joinFailed):
            return (invite, [])
        }
    }

    /// The invite as it was before this node's redemption.
    private static func unused(_ invite: InviteRecord) -> InviteRecord {
        var pending = invite
        pending.state = .pending
        pending.usedBy = nil
        pending.usedAt = nil
        return pending
    }
}

extension GatewayError {
    /// The wire error for a refused redemption.
    init(_ refusal: InviteMachine.Refusal) {
        switch refusal {
        case .used: self.init(.inviteUsed, "this invite was already used")
        case .expired(let at): self.init(.inviteExpired, "this invite expired at \(at)")
        case .inviterGone: self.init(.inviteRevoked, "this invite was revoked: whoever made it is no longer a member of the group")
        case .alreadyMember: self.init(.alreadyMember, "you are already a member of this group")
        }
    }
}
