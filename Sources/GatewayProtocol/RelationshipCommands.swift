/// Client commands of the relationship flows (see docs/PROTOCOL.md, "Relationships"). Every field name is the wire
/// name; optional fields may be omitted.

/// `friend_request`: ask the user with this 8-character hex code to become a contact.
public struct FriendRequestCommand: Decodable, Sendable { public var hexCode: String }

/// `friend_request_accept`, `friend_request_reject`, `friend_request_cancel`.
public struct FriendRequestAnswerCommand: Decodable, Sendable { public var requestId: String }

/// `connect_code`: the caller's 6-digit code; `regenerate: true` replaces it (the old one then reports expired).
public struct ConnectCodeCommand: Decodable, Sendable { public var regenerate: Bool? }

/// `connect`: become contacts with the owner of a 6-digit connect code.
public struct ConnectCommand: Decodable, Sendable { public var code: String }

/// `contact_pause`, `contact_resume`, `contact_remove`.
public struct ContactCommand: Decodable, Sendable { public var userId: String }

/// `send_event`: an app-defined event ("ping") to one contact (`to`) or to a group (`groupId`) — exactly one of them.
public struct SendEventCommand: Decodable, Sendable {
    public var to: String?
    public var groupId: String?
    /// 1–64 characters.
    public var name: String
    public var payload: JSONValue?
}

/// `group_create`.
public struct GroupCreateCommand: Decodable, Sendable {
    public var name: String
    public var kind: String?
    public var maxMembers: Int?
    /// `members` (default) or `owner`.
    public var invitePolicy: String?
    public var roleLimits: [String: Int]?
}

/// `group_get`, `group_leave`.
public struct GroupCommand: Decodable, Sendable { public var groupId: String }

/// `group_remove_member` (owner only).
public struct GroupMemberCommand: Decodable, Sendable {
    public var groupId: String
    public var userId: String
}

/// `group_send_message`: same text rules and idempotency as `send_message`.
public struct GroupSendMessageCommand: Decodable, Sendable {
    public var groupId: String
    public var text: String
    public var clientMessageId: String?
}

/// `invite_create`: `phone` or `email` (for delivery and the 24-hour rule), or neither for a shareable code.
public struct InviteCreateCommand: Decodable, Sendable {
    public var groupId: String
    public var phone: String?
    public var email: String?
    public var role: String?
    /// Lifetime in hours (1…`maxInviteHours`); the default is `defaultInviteHours` (7 days).
    public var expiresInHours: Int?
}

/// `invite_redeem`.
public struct InviteRedeemCommand: Decodable, Sendable { public var code: String }

/// `discover`: address-book entries as phone numbers (normalised server-side to E.164) and/or SHA-256 hex hashes
/// of E.164 numbers.
public struct DiscoverCommand: Decodable, Sendable {
    public var numbers: [String]?
    public var hashes: [String]?
}
