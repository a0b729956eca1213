/// The `data` objects of relationship events and replies. Field names are the wire names.

/// How a user is shown: `name` is the display name, or the hex code when the user has none.
public struct UserRef: Codable, Sendable, Equatable {
    public var userId: String
    public var hexCode: String
    public var displayName: String?
    /// `displayName ?? hexCode`: what an app shows.
    public var name: String
    public init(userId: String, hexCode: String, displayName: String?) {
        self.userId = userId; self.hexCode = hexCode; self.displayName = displayName; self.name = displayName ?? hexCode
    }
}

public struct FriendRequestData: Codable, Sendable, Equatable {
    public var requestId: String
    public var from: UserRef
    public var to: UserRef
    /// `pending`, `accepted`, `rejected` or `cancelled`.
    public var state: String
    public var createdAt: Int64
    public var resolvedAt: Int64?
    public init(requestId: String, from: UserRef, to: UserRef, state: String, createdAt: Int64, resolvedAt: Int64?) {
        self.requestId = requestId; self.from = from; self.to = to; self.state = state; self.createdAt = createdAt; self.resolvedAt = resolvedAt
    }
}

/// One entry of the `contacts` list and of `contact_paused` / `contact_resumed` events.
public struct ContactStateData: Codable, Sendable, Equatable {
    public var user: UserRef
    public var createdAt: Int64
    /// True while either side has paused the contact.
    public var paused: Bool
    public var pausedByMe: Bool
    public var pausedByThem: Bool
    public init(user: UserRef, createdAt: Int64, paused: Bool, pausedByMe: Bool, pausedByThem: Bool) {
        self.user = user; self.createdAt = createdAt; self.paused = paused; self.pausedByMe = pausedByMe; self.pausedByThem = pausedByThem
    }
}

public struct ContactPauseEventData: Codable, Sendable, Equatable {
    /// The other side of the contact, from the receiving user's point of view.
    public var user: UserRef
    /// Who paused or resumed.
    public var by: String
    /// Whether the contact is still paused afterwards (resuming one side leaves the other side's pause).
    public var paused: Bool
    public var at: Int64
    public init(user: UserRef, by: String, paused: Bool, at: Int64) { self.user = user; self.by = by; self.paused = paused; self.at = at }
}

/// A user the caller blocked: the `block` reply, each entry of `blocks`, and the data of `user_blocked` /
/// `user_unblocked` (in the blocker's log only).
public struct BlockData: Codable, Sendable, Equatable {
    public var user: UserRef
    public var blockedAt: Int64
    public init(user: UserRef, blockedAt: Int64) { self.user = user; self.blockedAt = blockedAt }
}

public struct ConnectCodeData: Codable, Sendable, Equatable {
    public var code: String
    public var createdAt: Int64
    public var expiresAt: Int64?
    public init(code: String, createdAt: Int64, expiresAt: Int64?) { self.code = code; self.createdAt = createdAt; self.expiresAt = expiresAt }
}

public struct ContactEventData: Codable, Sendable, Equatable {
    public var from: UserRef
    public var name: String
    public var payload: JSONValue?
    public var sentAt: Int64
    public init(from: UserRef, name: String, payload: JSONValue?, sentAt: Int64) {
        self.from = from; self.name = name; self.payload = payload; self.sentAt = sentAt
    }
}

public struct GroupMemberData: Codable, Sendable, Equatable {
    public var user: UserRef
    public var role: String
    public var joinedAt: Int64
    public init(user: UserRef, role: String, joinedAt: Int64) { self.user = user; self.role = role; self.joinedAt = joinedAt }
}

public struct GroupData: Codable, Sendable, Equatable {
    public var groupId: String
    public var name: String
    public var kind: String
    public var owner: UserRef
    public var maxMembers: Int
    public var invitePolicy: String
    public var roleLimits: [String: Int]
    /// Active members only.
    public var members: [GroupMemberData]
    public var createdAt: Int64
    public init(groupId: String, name: String, kind: String, owner: UserRef, maxMembers: Int, invitePolicy: String,
                roleLimits: [String: Int], members: [GroupMemberData], createdAt: Int64) {
        self.groupId = groupId; self.name = name; self.kind = kind; self.owner = owner; self.maxMembers = maxMembers
        self.invitePolicy = invitePolicy; self.roleLimits = roleLimits; self.members = members; self.createdAt = createdAt
    }
}

/// `group_member_joined` / `group_member_left`.
public struct GroupMembershipEventData: Codable, Sendable, Equatable {
    public var groupId: String
    public var groupName: String
    public var member: GroupMemberData
    /// `created`, `invite`, `backend` (joined) or `left`, `removed` (left).
    public var reason: String
    public init(groupId: String, groupName: String, member: GroupMemberData, reason: String) {
        self.groupId = groupId; self.groupName = groupName; self.member = member; self.reason = reason
    }
}

public struct GroupMessageData: Codable, Sendable, Equatable {
    public var groupId: String
    public var from: UserRef
    public var text: String
    public var sentAt: Int64
    public var clientMessageId: String?
    public init(groupId: String, from: UserRef, text: String, sentAt: Int64, clientMessageId: String?) {
        self.groupId = groupId; self.from = from; self.text = text; self.sentAt = sentAt; self.clientMessageId = clientMessageId
    }
}

public struct GroupEventData: Codable, Sendable, Equatable {
    public var groupId: String
    /// nil when the app backend published the event.
    public var from: UserRef?
    public var name: String
    public var payload: JSONValue?
    public var sentAt: Int64
    public init(groupId: String, from: UserRef?, name: String, payload: JSONValue?, sentAt: Int64) {
        self.groupId = groupId; self.from = from; self.name = name; self.payload = payload; self.sentAt = sentAt
    }
}

public struct InviteData: Codable, Sendable, Equatable {
    public var code: String
    public var groupId: String
    public var groupName: String
    public var inviter: UserRef
    public var recipient: String?
    public var role: String
    /// `pending`, `used` or `revoked`.
    public var state: String
    public var createdAt: Int64
    public var expiresAt: Int64
    public init(code: String, groupId: String, groupName: String, inviter: UserRef, recipient: String?, role: String,
                state: String, createdAt: Int64, expiresAt: Int64) {
        self.code = code; self.groupId = groupId; self.groupName = groupName; self.inviter = inviter; self.recipient = recipient
        self.role = role; self.state = state; self.createdAt = createdAt; self.expiresAt = expiresAt
    }
}

/// One address-book entry of a `discover` answer.
public struct DiscoveryEntry: Codable, Sendable, Equatable {
    /// The entry as sent (a number or a hash).
    public var input: String
    /// `contact` (already a contact), `user` (a user: add them), `invite` (not a user: invite them) or `invalid`.
    public var status: String
    /// The E.164 form, for numbers that normalised.
    public var e164: String?
    public var user: UserRef?
    public init(input: String, status: String, e164: String?, user: UserRef?) {
        self.input = input; self.status = status; self.e164 = e164; self.user = user
    }
}
