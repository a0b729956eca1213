/// The hub's in-memory view of the relationship records of the users it holds, with the indexes the flows need
/// (docs/ARCHITECTURE.md, "Memory and load on demand"). Rows come with each user's entry (`UserRelationships`) and
/// go when no user holding them is loaded any more; look-ups not keyed by a user (a code, an invite, a phone's owner,
/// a group by id) are store reads. Hub thread only.
struct RelationshipState {
    var friendRequests: [String: FriendRequestRecord] = [:]
    /// Pending request id by "from\0to".
    var pendingRequests: [String: String] = [:]
    /// pauses[userId][contactId]: userId paused contactId.
    var pauses: [String: [String: ContactPauseRecord]] = [:]
    /// The current codes of the users held, and codes this node replaced (they answer "expired" at once).
    var connectCodes: [String: ConnectCodeRecord] = [:]
    /// The code each user currently hands out.
    var currentCode: [String: String] = [:]
    /// Groups with at least one active member held here, each with all its membership rows.
    var groups: [String: GroupRecord] = [:]
    var members: [String: [String: GroupMemberRecord]] = [:]
    /// Invites this node is writing (created or being redeemed) until their write is stored; others are read by code.
    var invites: [String: InviteRecord] = [:]
    var phoneByUser: [String: String] = [:]
    /// Groups just read from the store by id for work about to run again (`GatewayHub.loadedGroup`).
    var groupsLookedUp: Set<String> = []

    static func pairKey(_ from: String, _ to: String) -> String { from + "\u{0}" + to }

    mutating func put(_ request: FriendRequestRecord) {
        friendRequests[request.id] = request
        let key = Self.pairKey(request.fromUserId, request.toUserId)
        if request.state == .pending {
            pendingRequests[key] = request.id
        } else if pendingRequests[key] == request.id {
            pendingRequests[key] = nil
        }
    }

    mutating func put(_ code: ConnectCodeRecord) {
        connectCodes[code.code] = code
        if code.revokedAt == nil { currentCode[code.userId] = code.code }
        else if currentCode[code.userId] == code.code { currentCode[code.userId] = nil }
    }

    mutating func setPhone(_ phone: String?, for userId: String) { phoneByUser[userId] = phone }

    func isPaused(_ a: String, _ b: String) -> Bool { pauses[a]?[b] != nil || pauses[b]?[a] != nil }

    func activeMembers(of groupId: String) -> [GroupMemberRecord] {
        (members[groupId] ?? [:]).values.filter(\.active).sorted { ($0.createdAt, $0.userId) < ($1.createdAt, $1.userId) }
    }

    func isActiveMember(_ userId: String, of groupId: String) -> Bool { members[groupId]?[userId]?.active == true }

    // MARK: Users read and forgotten

    /// Adds `id`'s rows read from the store. `replace`: a re-read after another node's change, whose rows overwrite
    /// memory's (the caller dropped `id`'s first); otherwise a first read, which adds only rows memory does not hold
    /// through another loaded user (`isLoaded`), since memory is newer there (this node's writes may be on their way).
    mutating func add(_ r: UserRelationships, of id: String, replace: Bool, isLoaded: (String) -> Bool) {
        for request in r.friendRequests {
            let other = request.fromUserId == id ? request.toUserId : request.fromUserId
            if replace || (friendRequests[request.id] == nil && !isLoaded(other)) { put(request) }
        }
        for pause in r.contactPauses {
            let other = pause.userId == id ? pause.contactId : pause.userId
            if replace || !isLoaded(other) { pauses[pause.userId, default: [:]][pause.contactId] = pause }
        }
        if let code = r.connectCode, replace || currentCode[id] == nil { put(code) }
        if let phone = r.phone, replace || phoneByUser[id] == nil { setPhone(phone.phone, for: id) }
        for group in r.groups where replace || groups[group.id] == nil {
            groups[group.id] = group
            for member in r.groupMembers where member.groupId == group.id { members[group.id, default: [:]][member.userId] = member }
        }
    }

    /// Forgets the rows of `ids` no other loaded user holds. `shared`: forget rows shared with loaded users too (a
    /// re-read replaces them). Groups go when none of their other active members is loaded.
    mutating func drop(_ ids: Set<String>, shared: Bool, isLoaded: (String) -> Bool) {
        func keep(_ other: String) -> Bool { !shared && !ids.contains(other) && isLoaded(other) }
        for (requestId, r) in friendRequests where ids.contains(r.fromUserId) || ids.contains(r.toUserId) {
            let other = ids.contains(r.fromUserId) ? r.toUserId : r.fromUserId
            guard !keep(other) else { continue }
            friendRequests[requestId] = nil
            let key = Self.pairKey(r.fromUserId, r.toUserId)
            if pendingRequests[key] == requestId { pendingRequests[key] = nil }
        }
        for id in ids {
            if let mine = pauses[id] { for other in mine.keys where !keep(other) { pauses[id]?[other] = nil } }
            if pauses[id]?.isEmpty == true { pauses[id] = nil }
            phoneByUser[id] = nil
            currentCode[id] = nil
        }
        for (user, theirs) in pauses where !ids.contains(user) && !keep(user) {
            for other in theirs.keys where ids.contains(other) { pauses[user]?[other] = nil }
            if pauses[user]?.isEmpty == true { pauses[user] = nil }
        }
        for (code, record) in connectCodes where ids.contains(record.userId) { connectCodes[code] = nil }
        for (groupId, rows) in members where rows.values.contains(where: { ids.contains($0.userId) }) {
            // A re-read brings back every group the user is still active in; a group it left stays while another
            // held user is active in it (that user's re-read follows any change to the group).
            let reread = shared && rows.values.contains { $0.active && ids.contains($0.userId) }
            let heldElsewhere = rows.values.contains { $0.active && !ids.contains($0.userId) && isLoaded($0.userId) }
            guard reread || !heldElsewhere else { continue }
            groups[groupId] = nil
            members[groupId] = nil
        }
    }

    /// The users whose entries hold the rows `write` changes (each re-reads them on the other nodes); empty for writes
    /// that are not relationship rows of users (invites are read by code).
    func usersHolding(_ write: StoreWrite) -> [String] {
        switch write {
        case .upsertFriendRequest(let r): return [r.fromUserId, r.toUserId]
        case .upsertContactPause(let p): return [p.userId, p.contactId]
        case .deleteContactPause(let userId, let contactId): return [userId, contactId]
        case .upsertConnectCode(let c): return [c.userId]
        case .upsertGroup(let g): return [g.ownerId] + activeMembers(of: g.id).map(\.userId)
        case .upsertGroupMember(let m): return [m.userId] + activeMembers(of: m.groupId).map(\.userId)
        case .upsertUserPhone(let p): return [p.userId]
        case .deleteUserPhone(let userId): return [userId]
        default: return []
        }
    }
}
