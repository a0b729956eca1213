/// The hub's in-memory view of the relationship records, with the indexes the flows need. Hub thread only.
struct RelationshipState {
    var friendRequests: [String: FriendRequestRecord] = [:]
    /// Pending request id by "from\0to".
    var pendingRequests: [String: String] = [:]
    /// pauses[userId][contactId]: userId paused contactId.
    var pauses: [String: [String: ContactPauseRecord]] = [:]
    var connectCodes: [String: ConnectCodeRecord] = [:]
    /// The code each user currently hands out.
    var currentCode: [String: String] = [:]
    var groups: [String: GroupRecord] = [:]
    var members: [String: [String: GroupMemberRecord]] = [:]
    var invites: [String: InviteRecord] = [:]
    var phoneByUser: [String: String] = [:]
    var userByPhone: [String: String] = [:]
    var userByPhoneHash: [String: String] = [:]
    /// Discovery look-ups per user in the sliding window: (time, entries).
    var discoveryLog: [String: [(at: Int64, count: Int)]] = [:]

    mutating func load(_ snapshot: GatewaySnapshot) {
        for request in snapshot.friendRequests { put(request) }
        for pause in snapshot.contactPauses { pauses[pause.userId, default: [:]][pause.contactId] = pause }
        for code in snapshot.connectCodes { put(code) }
        for group in snapshot.groups { groups[group.id] = group }
        for member in snapshot.groupMembers { members[member.groupId, default: [:]][member.userId] = member }
        for invite in snapshot.invites { invites[invite.code] = invite }
        for phone in snapshot.userPhones { setPhone(phone.phone, for: phone.userId) }
    }

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

    mutating func setPhone(_ phone: String?, for userId: String) {
        if let old = phoneByUser[userId] {
            userByPhone[old] = nil
            userByPhoneHash[PhoneNumber.hash(e164: old)] = nil
        }
        phoneByUser[userId] = phone
        if let phone {
            userByPhone[phone] = userId
            userByPhoneHash[PhoneNumber.hash(e164: phone)] = userId
        }
    }

    func isPaused(_ a: String, _ b: String) -> Bool { pauses[a]?[b] != nil || pauses[b]?[a] != nil }

    func activeMembers(of groupId: String) -> [GroupMemberRecord] {
        (members[groupId] ?? [:]).values.filter(\.active).sorted { ($0.createdAt, $0.userId) < ($1.createdAt, $1.userId) }
    }

    func isActiveMember(_ userId: String, of groupId: String) -> Bool { members[groupId]?[userId]?.active == true }
}
