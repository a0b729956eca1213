import GatewayProtocol

/// A group's membership as a pure state machine: joining (capacity and per-role limits, the owner role reserved,
/// a former member reactivated with its original join time) and leaving or being removed (only by the owner, never
/// the owner). No threads, clock or store: the hub checks that the group and the user exist, commits the member row
/// with the event in the logs the action names, and keeps the returned state.
struct GroupMembership {
    /// The group and every member it has had (inactive ones are former members).
    struct State: Equatable {
        var group: GroupRecord
        var members: [String: GroupMemberRecord]

        /// Active members, oldest first (the order events are appended in).
        var active: [GroupMemberRecord] {
            members.values.filter(\.active).sorted { ($0.createdAt, $0.userId) < ($1.createdAt, $1.userId) }
        }
    }

    enum Input: Equatable {
        case join(user: String, role: String)
        /// `by`: the user itself (leaving), another member (the owner removing), nil for the backend.
        case remove(user: String, by: String?)
        /// The store refused a join (`StoreConflict.groupJoinRefused`: another node changed the membership first):
        /// its group and membership rows replace what was known; the join is then decided again on them.
        case storeDecided(group: GroupRecord, members: [GroupMemberRecord])
    }

    enum Refusal: Error, Equatable {
        case invalidRole
        case alreadyMember
        case full
        case roleFull(role: String, limit: Int)
        case notAMember(user: String)
        case onlyTheOwnerRemoves
        case ownerCannotLeave
    }

    /// The event a membership change appends.
    enum Event: String, Equatable {
        case joined = "group_member_joined"
        case left = "group_member_left"
    }

    enum Action: Equatable {
        /// Commit the member row with `event` in the logs of `notify` (every active member after a join; everyone who
        /// was a member, the leaver included, after a leave), in order.
        case commitMember(GroupMemberRecord, Event, notify: [String])
        case refuse(Refusal)
    }

    static func transition(_ state: State, _ input: Input, now: Int64) -> (State, [Action]) {
        var next = state
        switch input {
        case .join(let user, let role):
            guard GatewayHub.validRole(role), role != "owner" else { return (state, [.refuse(.invalidRole)]) }
            guard state.members[user]?.active != true else { return (state, [.refuse(.alreadyMember)]) }
            if let refusal = capacityRefusal(state, role: role) { return (state, [.refuse(refusal)]) }
            var member = state.members[user] ?? GroupMemberRecord(groupId: state.group.id, userId: user, role: role, createdAt: now)
            member.active = true
            member.role = role
            next.members[user] = member
            return (next, [.commitMember(member, .joined, notify: next.active.map(\.userId))])
        case .remove(let user, let actor):
            if let actor, actor != user, actor != state.group.ownerId { return (state, [.refuse(.onlyTheOwnerRemoves)]) }
            guard var member = state.members[user], member.active else { return (state, [.refuse(.notAMember(user: user))]) }
            guard user != state.group.ownerId else { return (state, [.refuse(.ownerCannotLeave)]) }
            let notify = state.active.map(\.userId)
            member.active = false
            next.members[user] = member
            return (next, [.commitMember(member, .left, notify: notify)])
        case .storeDecided(let group, let members):
            return (State(group: group, members: Dictionary(members.map { ($0.userId, $0) }, uniquingKeysWith: { $1 })), [])
        }
    }

    /// Whether one more active member with `role` fits (also asked before an invite is made).
    static func capacityRefusal(_ state: State, role: String) -> Refusal? {
        switch state.group.capacityRefusal(joining: role, members: state.members.values) {
        case nil: return nil
        case .full: return .full
        case .roleFull(let role, let limit): return .roleFull(role: role, limit: limit)
        }
    }

    /// Whether `user` may learn anything of the group through a client command: only an active member may. A
    /// non-member is answered exactly as for a group that does not exist (`GatewayError(hiddenGroup:)`), so group
    /// ids cannot be probed for existence, names or membership. `state`: nil when there is no such group.
    static func isVisible(_ state: State?, to user: String) -> Bool {
        state?.members[user]?.active == true
    }
}

extension GatewayError {
    /// The one answer to a client about a group it cannot see (missing, or it is not an active member): the same
    /// code and text either way, naming only the id the client sent.
    init(hiddenGroup groupId: String) {
        self.init(.groupNotFound, "no group \"\(groupId)\" of yours")
    }

    /// The wire error for a refused membership change in `group`.
    init(_ refusal: GroupMembership.Refusal, group: GroupRecord) {
        switch refusal {
        case .invalidRole: self.init(.invalidField, "role must be 1 to 32 of a-z, 0-9, _ and - (not owner)")
        case .alreadyMember: self.init(.alreadyMember, "already a member of \"\(group.name)\"")
        case .full: self.init(.groupFull, "group \"\(group.name)\" is full (\(group.maxMembers) members)")
        case .roleFull(let role, let limit): self.init(.groupFull, "group \"\(group.name)\" already has \(limit) \(role) member(s)")
        case .notAMember(let user): self.init(.notAMember, "\"\(user)\" is not a member of \"\(group.name)\"")
        case .onlyTheOwnerRemoves: self.init(.forbidden, "only the owner can remove members")
        case .ownerCannotLeave: self.init(.forbidden, "the owner cannot leave the group")
        }
    }
}
