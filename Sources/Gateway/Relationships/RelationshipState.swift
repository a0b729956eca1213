/// The hub's in-memory view of the relationship records of the users it holds, with the indexes the flows need
/// (docs/ARCHITECTURE.md, "Memory and load on demand"). Rows come with each user's entry (`UserRelationships`) and
/// go when no user holding them is loaded any more; look-ups not keyed by a user (a code, an invite, a phone's owner,
/// a group by id) are store reads. Hub thread only.
struct RelationshipState {
    // The rows, changed only through the methods below so the per-user indexes stay exact.
    private(set) var friendRequests: [String: FriendRequestRecord] = [:]
    /// Pending request id by "from\0to".
    private(set) var pendingRequests: [String: String] = [:]
    /// pauses[userId][contactId]: userId paused contactId; `pauses.outers(of: contactId)`: who paused contactId.
    private(set) var pauses = IndexedPairs<ContactPauseRecord>()
    /// blocks[userId][blockedId]: userId blocked blockedId; `blocks.outers(of: blockedId)`: who blocked blockedId.
    private(set) var blocks = IndexedPairs<BlockRecord>()
    /// The current codes of the users held, and codes this node replaced (they answer "expired" at once).
    private(set) var connectCodes: [String: ConnectCodeRecord] = [:]
    /// The code each user currently hands out.
    private(set) var currentCode: [String: String] = [:]
    /// Groups with at least one active member held here, each with all its membership rows.
    private(set) var groups: [String: GroupRecord] = [:]
    /// members[groupId][userId]; `members.outers(of: userId)`: the groups in which the user has a row (active or not).
    private(set) var members = IndexedPairs<GroupMemberRecord>()
    /// Invites this node is writing (created or being redeemed) until their write is stored; others are read by code.
    var invites: [String: InviteRecord] = [:]
    var phoneByUser: [String: String] = [:]
    /// Groups just read from the store by id for work about to run again (`GatewayHub.loadedGroup`).
    var groupsLookedUp: Set<String> = []

    // Per-user indexes over the rows, so that reading, forgetting or re-reading a user costs O(rows of that user),
    // not a pass over every row held.
    /// The friend requests each user sent or received, by id.
    private(set) var requestsByUser: [String: Set<String>] = [:]
    /// The codes in `connectCodes` each user owns.
    private(set) var codesByUser: [String: Set<String>] = [:]

    static func pairKey(_ from: String, _ to: String) -> String { from + "\u{0}" + to }

    // MARK: Changing rows

    mutating func put(_ request: FriendRequestRecord) {
        if let old = friendRequests[request.id] { unindex(old) }
        friendRequests[request.id] = request
        requestsByUser[request.fromUserId, default: []].insert(request.id)
        requestsByUser[request.toUserId, default: []].insert(request.id)
        let key = Self.pairKey(request.fromUserId, request.toUserId)
        if request.state == .pending {
            pendingRequests[key] = request.id
        } else if pendingRequests[key] == request.id {
            pendingRequests[key] = nil
        }
    }

    /// Forgets a friend request (and its pending mark).
    mutating func removeFriendRequest(_ id: String) {
        guard let request = friendRequests.removeValue(forKey: id) else { return }
        unindex(request)
        let key = Self.pairKey(request.fromUserId, request.toUserId)
        if pendingRequests[key] == id { pendingRequests[key] = nil }
    }

    private mutating func unindex(_ request: FriendRequestRecord) {
        Self.remove(request.id, from: request.fromUserId, in: &requestsByUser)
        Self.remove(request.id, from: request.toUserId, in: &requestsByUser)
    }

    /// `userId`'s pause on `contactId`: set, or removed (nil).
    mutating func setPause(_ pause: ContactPauseRecord?, by userId: String, on contactId: String) {
        pauses.set(pause, userId, contactId)
    }

    /// `userId`'s block of `blockedId`: set, or removed (nil).
    mutating func setBlock(_ block: BlockRecord?, by userId: String, of blockedId: String) {
        blocks.set(block, userId, blockedId)
    }

    mutating func put(_ code: ConnectCodeRecord) {
        if let old = connectCodes[code.code], old.userId != code.userId {
            Self.remove(code.code, from: old.userId, in: &codesByUser)
            if currentCode[old.userId] == code.code { currentCode[old.userId] = nil }
        }
        connectCodes[code.code] = code
        codesByUser[code.userId, default: []].insert(code.code)
        if code.revokedAt == nil { currentCode[code.userId] = code.code }
        else if currentCode[code.userId] == code.code { currentCode[code.userId] = nil }
    }

    /// `userId` no longer hands out `code` (its claim was lost); the code row stays as it is.
    mutating func dropCurrentCode(_ code: String, of userId: String) {
        if currentCode[userId] == code { currentCode[userId] = nil }
    }

    mutating func setPhone(_ phone: String?, for userId: String) { phoneByUser[userId] = phone }

    mutating func put(_ group: GroupRecord) { groups[group.id] = group }

    /// `userId`'s membership row in `groupId`: set, or removed (nil).
    mutating func setMember(_ member: GroupMemberRecord?, of groupId: String, user userId: String) {
        members.set(member, groupId, userId)
    }

    /// Forgets a group with all its membership rows.
    private mutating func removeGroup(_ groupId: String) {
        groups[groupId] = nil
        members.removeAll(groupId)
    }

    static func remove(_ value: String, from key: String, in index: inout [String: Set<String>]) {
        guard index[key]?.remove(value) != nil, index[key]?.isEmpty == true else { return }
        index[key] = nil
    }

    // MARK: Reading by user

    func isPaused(_ a: String, _ b: String) -> Bool { pauses[a]?[b] != nil || pauses[b]?[a] != nil }

    /// `BlockMachine`'s view of the pair: who blocked whom.
    func blockState(_ me: String, _ other: String) -> BlockMachine.Pair {
        BlockMachine.Pair(byMe: blocks[me]?[other], byThem: blocks[other]?[me] != nil)
    }

    func activeMembers(of groupId: String) -> [GroupMemberRecord] {
        (members[groupId] ?? [:]).values.filter(\.active).sorted { ($0.createdAt, $0.userId) < ($1.createdAt, $1.userId) }
    }

    func isActiveMember(_ userId: String, of groupId: String) -> Bool { members[groupId]?[userId]?.active == true }

    /// The friend requests `userId` sent or received: O(its requests).
    func friendRequests(of userId: String) -> [FriendRequestRecord] {
        (requestsByUser[userId] ?? []).compactMap { friendRequests[$0] }
    }

    /// The groups `userId` is an active member of: O(its memberships).
    func activeGroups(of userId: String) -> [GroupRecord] {
        members.outers(of: userId).compactMap { isActiveMember(userId, of: $0) ? groups[$0] : nil }
    }

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
            if replace || !isLoaded(other) { setPause(pause, by: pause.userId, on: pause.contactId) }
        }
        for block in r.blocks {
            let other = block.userId == id ? block.blockedId : block.userId
            if replace || !isLoaded(other) { setBlock(block, by: block.userId, of: block.blockedId) }
        }
        if let code = r.connectCode, replace || currentCode[id] == nil { put(code) }
        if let phone = r.phone, replace || phoneByUser[id] == nil { setPhone(phone.phone, for: id) }
        for group in r.groups where replace || groups[group.id] == nil {
            put(group)
            for member in r.groupMembers where member.groupId == group.id { setMember(member, of: group.id, user: member.userId) }
        }
    }

    /// Forgets the rows of `ids` no other loaded user holds. `shared`: forget rows shared with loaded users too (a
    /// re-read replaces them). Groups go when none of their other active members is loaded. Touches only the rows of
    /// `ids` (through the per-user indexes) and the membership rows of their groups.
    mutating func drop(_ ids: Set<String>, shared: Bool, isLoaded: (String) -> Bool) {
        func keep(_ other: String) -> Bool { !shared && !ids.contains(other) && isLoaded(other) }
        for id in ids {
            for requestId in requestsByUser[id] ?? [] {
                guard let r = friendRequests[requestId] else { continue }
                if !keep(r.fromUserId == id ? r.toUserId : r.fromUserId) { removeFriendRequest(requestId) }
            }
            for other in (pauses[id] ?? [:]).keys where !keep(other) { setPause(nil, by: id, on: other) }
            for pauser in pauses.outers(of: id) where !keep(pauser) { setPause(nil, by: pauser, on: id) }
            for other in (blocks[id] ?? [:]).keys where !keep(other) { setBlock(nil, by: id, of: other) }
            for blocker in blocks.outers(of: id) where !keep(blocker) { setBlock(nil, by: blocker, of: id) }
            phoneByUser[id] = nil
            currentCode[id] = nil
            for code in codesByUser.removeValue(forKey: id) ?? [] { connectCodes[code] = nil }
        }
        for groupId in Set(ids.flatMap { members.outers(of: $0) }) {
            let rows = members[groupId] ?? [:]
            // A re-read brings back every group the user is still active in; a group it left stays while another
            // held user is active in it (that user's re-read follows any change to the group).
            let reread = shared && rows.values.contains { $0.active && ids.contains($0.userId) }
            let heldElsewhere = rows.values.contains { $0.active && !ids.contains($0.userId) && isLoaded($0.userId) }
            guard reread || !heldElsewhere else { continue }
            removeGroup(groupId)
        }
    }

    /// The users whose entries hold the rows `write` changes (each re-reads them on the other nodes); empty for writes
    /// that are not relationship rows of users (invites are read by code).
    func usersHolding(_ write: StoreWrite) -> [String] {
        switch write {
        case .upsertFriendRequest(let r), .createFriendRequest(let r), .resolveFriendRequest(let r): return [r.fromUserId, r.toUserId]
        case .upsertContactPause(let p): return [p.userId, p.contactId]
        case .deleteContactPause(let userId, let contactId): return [userId, contactId]
        case .upsertBlock(let b): return [b.userId, b.blockedId]
        case .deleteBlock(let userId, let blockedId): return [userId, blockedId]
        case .upsertConnectCode(let c), .claimConnectCode(let c, _): return [c.userId]
        case .upsertGroup(let g): return [g.ownerId] + activeMembers(of: g.id).map(\.userId)
        case .upsertGroupMember(let m), .joinGroup(let m): return [m.userId] + activeMembers(of: m.groupId).map(\.userId)
        case .upsertUserPhone(let p): return [p.userId]
        case .deleteUserPhone(let userId): return [userId]
        default: return []
        }
    }
}

/// Rows keyed by two ids, `rows[outer][inner]`, with the reverse index (inner → the outers having a row for it), both
/// kept by `set`: a pause by user and contact, a membership by group and user. Empty maps and sets are never left.
struct IndexedPairs<Row> {
    private(set) var rows: [String: [String: Row]] = [:]
    /// inner → the outers with a row for it.
    private(set) var reverse: [String: Set<String>] = [:]

    subscript(outer: String) -> [String: Row]? { rows[outer] }

    var isEmpty: Bool { rows.isEmpty }
    /// Rows held.
    var count: Int { rows.values.reduce(0) { $0 + $1.count } }

    /// The outers with a row for `inner`.
    func outers(of inner: String) -> Set<String> { reverse[inner] ?? [] }

    /// Sets or (nil) removes the row of (`outer`, `inner`).
    mutating func set(_ row: Row?, _ outer: String, _ inner: String) {
        if let row {
            rows[outer, default: [:]][inner] = row
            reverse[inner, default: []].insert(outer)
        } else {
            guard rows[outer]?.removeValue(forKey: inner) != nil else { return }
            if rows[outer]?.isEmpty == true { rows[outer] = nil }
            RelationshipState.remove(outer, from: inner, in: &reverse)
        }
    }

    /// Removes every row of `outer`.
    mutating func removeAll(_ outer: String) {
        for inner in (rows.removeValue(forKey: outer) ?? [:]).keys { RelationshipState.remove(outer, from: inner, in: &reverse) }
    }
}
