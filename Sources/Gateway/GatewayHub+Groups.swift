import GatewayProtocol

/// Groups (a family, a photo circle): an owner, members with roles, a size limit and optional per-role limits.
/// Membership changes and everything sent to a group are durable events in the log of every active member
/// (`group_created`, `group_member_joined`, `group_member_left`, `group_message`, `group_event`). Group membership
/// does not make members contacts: presence stays contact-scoped.
extension GatewayHub {
    /// What a creator chooses; nil fields take the defaults of `RelationshipSettings`.
    public struct GroupSpec: Sendable {
        public var id: String?
        public var name: String
        public var kind: String?
        public var maxMembers: Int?
        public var invitePolicy: String?
        public var roleLimits: [String: Int]?
        public init(id: String? = nil, name: String, kind: String? = nil, maxMembers: Int? = nil, invitePolicy: String? = nil,
                    roleLimits: [String: Int]? = nil) {
            self.id = id; self.name = name; self.kind = kind; self.maxMembers = maxMembers; self.invitePolicy = invitePolicy
            self.roleLimits = roleLimits
        }
    }

    /// Creates a group owned (and joined, role `owner`) by `ownerId`. Errors: `user_not_found`, `invalid_field`.
    /// The rules are `GroupCreationMachine`'s; this reads a chosen id's group and commits what it decides.
    public func createGroup(ownerId: String, _ spec: GroupSpec, completion: @escaping (Result<GroupData, GatewayError>) -> Void) {
        // A chosen id may be another node's group: read it first (GatewayHub+RelationshipReads).
        if let id = spec.id, !loadedGroup(id, plus: [ownerId], failed: { completion(.failure($0)) }, retry: { [self] in
            createGroup(ownerId: ownerId, spec, completion: completion)
        }) { return }
        let request = GroupCreationMachine.Request(ownerId: ownerId, id: spec.id ?? "grp_" + randomToken(), name: spec.name, kind: spec.kind,
                                                   maxMembers: spec.maxMembers, invitePolicy: spec.invitePolicy, roleLimits: spec.roleLimits)
        let (_, actions) = GroupCreationMachine.transition(relations.groups[request.id], .create(request, ownerExists: users[ownerId] != nil),
                                                           limits: settings.relationships, now: clock.now())
        for action in actions {
            switch action {
            case .refuse(let refusal): return completion(.failure(GatewayError(refusal)))
            case .commit(let group, let owner, let event):
                relations.put(group)
                relations.setMember(owner, of: group.id, user: ownerId)
                let data = groupData(group.id)!
                commit([.upsertGroup(group), .upsertGroupMember(owner)],
                       events: [PendingEvent(userId: ownerId, type: event.logType, data: encode(data))], completion: Self.finish(completion) { data })
            }
        }
    }

    /// The group with its active members; nil when there is no such group.
    public func groupData(_ groupId: String) -> GroupData? {
        guard let g = relations.groups[groupId] else { return nil }
        return GroupData(groupId: g.id, name: g.name, kind: g.kind, owner: userRef(g.ownerId), maxMembers: g.maxMembers,
                         invitePolicy: g.invitePolicy, roleLimits: g.roleLimits,
                         members: relations.activeMembers(of: groupId).map(memberData), createdAt: g.createdAt)
    }

    /// Groups `userId` is an active member of, oldest first.
    public func groups(of userId: String) -> [GroupData] {
        relations.activeGroups(of: userId)
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.compactMap { groupData($0.id) }
    }

    func memberData(_ m: GroupMemberRecord) -> GroupMemberData {
        GroupMemberData(user: userRef(m.userId), role: m.role, joinedAt: m.createdAt)
    }

    /// The group's membership as `GroupMembership` takes it.
    private func membership(_ group: GroupRecord) -> GroupMembership.State {
        GroupMembership.State(group: group, members: relations.members[group.id] ?? [:])
    }

    /// Feeds `GroupMembership` one change: the refusal's error, or the member row to commit and its events (memory
    /// already holds the change). `reason` is the events' (`invite`, `backend`, `left`, `removed`).
    private func changeMembership(_ group: GroupRecord, _ input: GroupMembership.Input, reason: String)
        -> Result<(GroupMemberRecord, [PendingEvent]), GatewayError> {
        for action in GroupMembership.transition(membership(group), input, now: clock.now()).1 {
            switch action {
            case .refuse(let refusal): return .failure(GatewayError(refusal, group: group))
            case .commitMember(let member, let event, let notify):
                let data = encode(GroupMembershipEventData(groupId: group.id, groupName: group.name, member: memberData(member), reason: reason))
                relations.setMember(member, of: group.id, user: member.userId)
                return .success((member, notify.map { PendingEvent(userId: $0, type: event.logType, data: data) }))
            }
        }
        return .failure(GatewayError(.internalError, "no membership decision"))
    }

    /// Adds (or reactivates, keeping its original join time) a member; `extra` writes (a used invite) go in the
    /// same commit. Errors: `group_not_found`, `user_not_found`, `already_member`, `group_full`, `invalid_field`.
    /// `onConflict`: a decision in `extra` lost (the membership is taken back first; see `commit`).
    /// The join itself is the store's decision (`joinGroup`: the limits counted in the commit's transaction): when
    /// another node changed the membership first, the store's rows are taken and the join decided again on them
    /// (`group_full`, `already_member`), `attempt` of 3.
    func join(groupId: String, userId: String, role: String, reason: String, extra: [StoreWrite] = [], attempt: Int = 1,
              onConflict: ((StoreConflict) -> Void)? = nil, completion: @escaping (Result<GroupData, GatewayError>) -> Void) {
        let again = { [self] (attempt: Int) in
            join(groupId: groupId, userId: userId, role: role, reason: reason, extra: extra, attempt: attempt, onConflict: onConflict,
                 completion: completion)
        }
        // The group's data names every member (GatewayHub+Loading).
        guard loadedGroup(groupId, plus: [userId], failed: { completion(.failure($0)) }, retry: { again(attempt) }) else { return }
        guard let group = relations.groups[groupId] else { return completion(.failure(GatewayError(.groupNotFound, "no group \"\(groupId)\""))) }
        guard users[userId] != nil else { return completion(.failure(GatewayError(.userNotFound, "no user \"\(userId)\""))) }
        let previous = relations.members[groupId]?[userId]
        let member: GroupMemberRecord, events: [PendingEvent]
        switch changeMembership(group, .join(user: userId, role: role), reason: reason) {
        case .failure(let error): return completion(.failure(error))
        case .success(let change): (member, events) = change
        }
        let data = groupData(groupId)!
        commit(extra + [.joinGroup(member)], events: events, onConflict: { [self] conflict in
            relations.setMember(previous, of: groupId, user: userId)
            guard case .groupJoinRefused(let stored, let rows) = conflict, attempt < 3 else {
                if let onConflict { return onConflict(conflict) }
                return completion(.failure(.storageFailed("could not store the change: \(conflict)", cause: conflict)))
            }
            guard let stored else { return completion(.failure(GatewayError(.groupNotFound, "no group \"\(groupId)\""))) }
            let (state, _) = GroupMembership.transition(membership(group), .storeDecided(group: stored, members: rows), now: clock.now())
            relations.put(state.group)
            for (user, row) in state.members { relations.setMember(row, of: groupId, user: user) }
            again(attempt + 1)
        }, completion: Self.finish(completion) { data })
    }

    /// Backend: adds a user to a group directly (no invite), with the same limits.
    public func addGroupMember(groupId: String, userId: String, role: String?, completion: @escaping (Result<GroupData, GatewayError>) -> Void) {
        join(groupId: groupId, userId: userId, role: role ?? "member", reason: "backend", completion: completion)
    }

    /// `userId` leaves, or `actor` (the owner, or the backend when nil) removes it; a soft delete, so a later invite
    /// reactivates the membership. Errors: `group_not_found`, `not_a_member`, `forbidden` (not the owner; the owner
    /// cannot leave its own group).
    public func removeGroupMember(groupId: String, userId: String, actor: String?, completion: @escaping (Result<GroupData, GatewayError>) -> Void) {
        guard loadedGroup(groupId, plus: [], failed: { completion(.failure($0)) }, retry: { [self] in
            removeGroupMember(groupId: groupId, userId: userId, actor: actor, completion: completion)
        }) else { return }
        guard let group = relations.groups[groupId] else { return completion(.failure(GatewayError(.groupNotFound, "no group \"\(groupId)\""))) }
        let member: GroupMemberRecord, events: [PendingEvent]
        switch changeMembership(group, .remove(user: userId, by: actor), reason: actor == userId ? "left" : "removed") {
        case .failure(let error): return completion(.failure(error))
        case .success(let change): (member, events) = change
        }
        let data = groupData(groupId)!
        commit([.upsertGroupMember(member)], events: events, completion: Self.finish(completion) { data })
    }

    /// A text message to every active member (the sender's devices included), with the direct-message rules:
    /// trimmed, 1…`maxMessageCharacters`, idempotent by `clientMessageId`. Errors: `text_empty`, `text_too_long`,
    /// `group_not_found`, `not_a_member`.
    public func sendGroupMessage(from userId: String, groupId: String, text raw: String, clientMessageId: String?,
                                 completion: @escaping (Result<SentAt, GatewayError>) -> Void) {
        post(.message(from: userId, text: raw, clientMessageId: clientMessageId), to: groupId, completion: completion)
    }

    /// An app-defined event to every active member: from a member (`from`), or from the backend (`from == nil`).
    /// Errors: `invalid_field` (name), `group_not_found`, `not_a_member`.
    public func sendGroupEvent(from: String?, groupId: String, name: String, payload: JSONValue?,
                               completion: @escaping (Result<SentAt, GatewayError>) -> Void) {
        post(.event(from: from, name: name, payload: payload), to: groupId, completion: completion)
    }

    /// Feeds `GroupPost` the post and commits what it decides. The content is checked before the group is loaded
    /// (a refused text costs no read); a message with a `clientMessageId` is decided before its key is looked up (a
    /// retry from someone no longer a member is refused) and committed with the key's claim.
    private func post(_ input: GroupPost.Input, to groupId: String, completion: @escaping (Result<SentAt, GatewayError>) -> Void) {
        let maxCharacters = settings.maxMessageCharacters
        if case .failure(let refusal) = GroupPost.checkContent(input, maxCharacters: maxCharacters) {
            return completion(.failure(GatewayError(refusal)))
        }
        guard loadedGroup(groupId, plus: [], failed: { completion(.failure($0)) }, retry: { [self] in
            post(input, to: groupId, completion: completion)
        }) else { return }
        let state = GroupPost.State(groupId: groupId,
                                    activeMembers: relations.groups[groupId] == nil ? nil : relations.activeMembers(of: groupId).map(\.userId),
                                    sender: input.sender.map(userRef))
        var events: [PendingEvent] = []
        var message: GroupMessageData?
        for action in GroupPost.transition(state, input, maxCharacters: maxCharacters, now: clock.now()) {
            switch action {
            case .refuse(let refusal):
                return completion(.failure(GatewayError(refusal)))
            case .commitMessage(let data, let logs):
                let bytes = encode(data)
                events = logs.map { PendingEvent(userId: $0, type: GroupPost.Event.message.logType, data: bytes, pushable: .groupMessage(data)) }
                message = data
            case .commitEvent(let data, let logs):
                let bytes = encode(data)
                events = logs.map { PendingEvent(userId: $0, type: GroupPost.Event.event.logType, data: bytes) }
            case .reply(let sent):
                let send = { [self] (claim: [StoreWrite], done: @escaping (Result<SentAt, GatewayError>) -> Void) in
                    commit(claim, events: events) { [self] outcome in
                        if message != nil, case .success = outcome { metrics.messagesSent.add(1, ordering: .relaxed) }
                        done(outcome.map { _ in sent })
                    }
                }
                guard let message, let key = message.clientMessageId else { return send([], completion) }
                let scope = "group_message:" + message.from.userId
                idempotency.run(scope: scope, key: key, request: ["groupId": groupId, "text": message.text], perform: { requestHash, done in
                    send([.claimIdempotency(scope: scope, key: key, response: self.encode(sent), requestHash: requestHash, createdAt: sent.sentAt)], done)
                }, completion: completion)
            }
        }
    }
}
