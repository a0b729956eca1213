/// One user's relationship rows, read with its `UserEntry` (docs/ARCHITECTURE.md, "Memory and load on demand"): what
/// the hub needs to answer for the user without other reads. Things not keyed by the user (a connect code or an
/// invite by its code, a phone number's owner, a group by id) are separate store reads.
public struct UserRelationships: Sendable, Equatable {
    /// Friend requests the user sent or received, in any state, in first-insert order.
    public var friendRequests: [FriendRequestRecord] = []
    /// Pauses on the user's contacts, by either side (`userId == id` or `contactId == id`).
    public var contactPauses: [ContactPauseRecord] = []
    /// Blocks by or of the user (`userId == id` or `blockedId == id`).
    public var blocks: [BlockRecord] = []
    /// The code the user currently hands out (not revoked), if any.
    public var connectCode: ConnectCodeRecord?
    /// The groups the user is an active member of.
    public var groups: [GroupRecord] = []
    /// Every membership row (active or not) of those groups, so a group is whole once any member is read.
    public var groupMembers: [GroupMemberRecord] = []
    /// The user's verified phone, if any.
    public var phone: UserPhoneRecord?

    public init() {}
}

/// Where `GatewayStore.phoneOwners` found a phone number or a hash of one.
public struct PhoneOwners: Sendable, Equatable {
    /// Owner by E.164 number.
    public var byPhone: [String: String] = [:]
    /// Owner by lowercase hex SHA-256 of the E.164 number.
    public var byHash: [String: String] = [:]

    public init(byPhone: [String: String] = [:], byHash: [String: String] = [:]) { self.byPhone = byPhone; self.byHash = byHash }
}
