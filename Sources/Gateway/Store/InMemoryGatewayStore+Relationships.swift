/// The reference semantics of the relationship writes, including the uniqueness rules the SQLite schema (V2)
/// enforces with PRIMARY KEY/UNIQUE constraints: a write that breaks one throws and the whole batch is dropped.
extension InMemoryGatewayStore.State {
    mutating func applyRelationship(_ write: StoreWrite) throws {
        switch write {
        case .upsertFriendRequest(let request):
            if request.state == .pending, snapshot.friendRequests.contains(where: {
                $0.id != request.id && $0.state == .pending && $0.fromUserId == request.fromUserId && $0.toUserId == request.toUserId
            }) {
                throw InMemoryConstraintError("a pending friend request \(request.fromUserId)->\(request.toUserId) already exists")
            }
            replace(&snapshot.friendRequests, request) { $0.id == request.id }
        case .createFriendRequest(let request):
            if let current = snapshot.friendRequests.first(where: { $0.state == .pending && $0.isBetween(request.fromUserId, request.toUserId) }) {
                throw StoreConflict.friendRequestPending(current: current)
            }
            try applyRelationship(.upsertFriendRequest(request))
        case .resolveFriendRequest(let request):
            guard let i = snapshot.friendRequests.firstIndex(where: { $0.id == request.id }), snapshot.friendRequests[i].state == .pending else {
                throw StoreConflict.friendRequestResolved(current: snapshot.friendRequests.first { $0.id == request.id })
            }
            snapshot.friendRequests[i].state = request.state
            snapshot.friendRequests[i].resolvedAt = request.resolvedAt
        case .joinGroup(let member):
            let rows = snapshot.groupMembers.filter { $0.groupId == member.groupId }.sorted { ($0.createdAt, $0.userId) < ($1.createdAt, $1.userId) }
            guard let group = snapshot.groups.first(where: { $0.id == member.groupId }),
                  !rows.contains(where: { $0.userId == member.userId && $0.active }),
                  group.capacityRefusal(joining: member.role, members: rows) == nil else {
                throw StoreConflict.groupJoinRefused(group: snapshot.groups.first { $0.id == member.groupId }, members: rows)
            }
            try applyRelationship(.upsertGroupMember(member))
        case .upsertContactPause(let pause):
            replace(&snapshot.contactPauses, pause) { $0.userId == pause.userId && $0.contactId == pause.contactId }
        case .deleteContactPause(let userId, let contactId):
            snapshot.contactPauses.removeAll { $0.userId == userId && $0.contactId == contactId }
        case .upsertBlock(let block):
            // Blocking again keeps the standing block (and its time), as the SQL stores' `DO NOTHING`.
            if !snapshot.blocks.contains(where: { $0.userId == block.userId && $0.blockedId == block.blockedId }) { snapshot.blocks.append(block) }
        case .deleteBlock(let userId, let blockedId):
            snapshot.blocks.removeAll { $0.userId == userId && $0.blockedId == blockedId }
        case .upsertConnectCode(let code):
            if let current = snapshot.connectCodes.first(where: { $0.code == code.code && $0.userId != code.userId }) {
                throw StoreConflict.connectCodeTaken(current: current)
            }
            if code.revokedAt == nil, snapshot.connectCodes.contains(where: { $0.userId == code.userId && $0.code != code.code && $0.revokedAt == nil }) {
                throw InMemoryConstraintError("user \(code.userId) already has a current connect code")
            }
            replace(&snapshot.connectCodes, code) { $0.code == code.code }
        case .claimConnectCode(let code, let retiredBy):
            if let current = snapshot.connectCodes.first(where: { $0.code == code.code && $0.userId != code.userId }) {
                guard current.isRetired(atOrBefore: retiredBy) else { throw StoreConflict.connectCodeTaken(current: current) }
                snapshot.connectCodes.removeAll { $0.code == code.code }
            }
            try applyRelationship(.upsertConnectCode(code))
        case .upsertGroup(let group):
            replace(&snapshot.groups, group) { $0.id == group.id }
        case .upsertGroupMember(var member):
            if let old = snapshot.groupMembers.first(where: { $0.groupId == member.groupId && $0.userId == member.userId }) {
                member.createdAt = old.createdAt
            }
            replace(&snapshot.groupMembers, member) { $0.groupId == member.groupId && $0.userId == member.userId }
        case .upsertInvite(let invite):
            if let current = snapshot.invites.first(where: { $0.code == invite.code }), !current.isSameInvite(as: invite) {
                throw StoreConflict.inviteCodeTaken(current: current)
            }
            replace(&snapshot.invites, invite) { $0.code == invite.code }
        case .upsertUserPhone(let phone):
            if snapshot.userPhones.contains(where: { $0.phone == phone.phone && $0.userId != phone.userId }) {
                throw InMemoryConstraintError("phone \(phone.phone) belongs to another user")
            }
            replace(&snapshot.userPhones, phone) { $0.userId == phone.userId }
        case .deleteUserPhone(let userId):
            snapshot.userPhones.removeAll { $0.userId == userId }
        default:
            preconditionFailure("not a relationship write")
        }
    }
}

/// A uniqueness rule of the store was broken (the in-memory twin of SQLITE_CONSTRAINT).
public struct InMemoryConstraintError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The relationship reads, with the same answers as the SQL stores'.
extension GatewaySnapshot {
    func relationships(of id: String) -> UserRelationships {
        var r = UserRelationships()
        r.friendRequests = friendRequests.filter { $0.fromUserId == id || $0.toUserId == id }
        r.contactPauses = contactPauses.filter { $0.userId == id || $0.contactId == id }
        r.blocks = blocks.filter { $0.userId == id || $0.blockedId == id }
        r.connectCode = connectCodes.first { $0.userId == id && $0.revokedAt == nil }
        let groupIds = Set(groupMembers.filter { $0.userId == id && $0.active }.map(\.groupId))
        r.groups = groups.filter { groupIds.contains($0.id) }
        r.groupMembers = groupMembers.filter { groupIds.contains($0.groupId) }
        r.phone = userPhones.first { $0.userId == id }
        return r
    }
}
