/// Client commands of the relationship flows (see docs/PROTOCOL.md, "Relationships"). Every field name is the wire
/// name; optional fields may be omitted. Each body is read by hand from the parsed frame (``JSONFields``).

/// `friend_request`: ask the user with this 8-character hex code to become a contact.
public struct FriendRequestCommand: Sendable, JSONFieldsDecodable {
    public var hexCode: String
    public init(fields f: JSONFields) throws(GatewayError) { hexCode = try f.string("hexCode") }
}

/// `friend_request_accept`, `friend_request_reject`, `friend_request_cancel`.
public struct FriendRequestAnswerCommand: Sendable, JSONFieldsDecodable {
    public var requestId: String
    public init(fields f: JSONFields) throws(GatewayError) { requestId = try f.string("requestId") }
}

/// `connect_code`: the caller's 6-digit code; `regenerate: true` replaces it (the old one then reports expired).
public struct ConnectCodeCommand: Sendable, JSONFieldsDecodable {
    public var regenerate: Bool?
    public init(fields f: JSONFields) throws(GatewayError) { regenerate = try f.optionalBool("regenerate") }
}

/// `connect`: become contacts with the owner of a 6-digit connect code.
public struct ConnectCommand: Sendable, JSONFieldsDecodable {
    public var code: String
    public init(fields f: JSONFields) throws(GatewayError) { code = try f.string("code") }
}

/// `contact_pause`, `contact_resume`, `contact_remove`.
public struct ContactCommand: Sendable, JSONFieldsDecodable {
    public var userId: String
    public init(fields f: JSONFields) throws(GatewayError) { userId = try f.id("userId") }
}

/// `send_event`: an app-defined event ("ping") to one contact (`to`) or to a group (`groupId`) — exactly one of them.
public struct SendEventCommand: Sendable, JSONFieldsDecodable {
    public var to: String?
    public var groupId: String?
    /// 1–64 characters.
    public var name: String
    public var payload: JSONValue?

    public init(fields f: JSONFields) throws(GatewayError) {
        to = try f.optionalID("to")
        groupId = try f.optionalID("groupId")
        name = try f.string("name")
        payload = f.optionalJSON("payload")
    }
}

/// `group_create`.
public struct GroupCreateCommand: Sendable, JSONFieldsDecodable {
    public var name: String
    public var kind: String?
    public var maxMembers: Int?
    /// `members` (default) or `owner`.
    public var invitePolicy: String?
    public var roleLimits: [String: Int]?

    public init(fields f: JSONFields) throws(GatewayError) {
        name = try f.string("name")
        kind = try f.optionalString("kind")
        maxMembers = try f.optionalInt("maxMembers")
        invitePolicy = try f.optionalString("invitePolicy")
        roleLimits = try f.optionalIntMap("roleLimits")
    }
}

/// `group_get`, `group_leave`.
public struct GroupCommand: Sendable, JSONFieldsDecodable {
    public var groupId: String
    public init(fields f: JSONFields) throws(GatewayError) { groupId = try f.id("groupId") }
}

/// `group_remove_member` (owner only).
public struct GroupMemberCommand: Sendable, JSONFieldsDecodable {
    public var groupId: String
    public var userId: String

    public init(fields f: JSONFields) throws(GatewayError) {
        groupId = try f.id("groupId")
        userId = try f.id("userId")
    }
}

/// `group_send_message`: same text rules and idempotency as `send_message`.
public struct GroupSendMessageCommand: Sendable, JSONFieldsDecodable {
    public var groupId: String
    public var text: String
    public var clientMessageId: String?

    public init(fields f: JSONFields) throws(GatewayError) {
        groupId = try f.id("groupId")
        text = try f.string("text")
        clientMessageId = try f.optionalString("clientMessageId")
    }
}

/// `invite_create`: `phone` or `email` (for delivery and the 24-hour rule), or neither for a shareable code.
public struct InviteCreateCommand: Sendable, JSONFieldsDecodable {
    public var groupId: String
    public var phone: String?
    public var email: String?
    public var role: String?
    /// Lifetime in hours (1…`maxInviteHours`); the default is `defaultInviteHours` (7 days).
    public var expiresInHours: Int?

    public init(fields f: JSONFields) throws(GatewayError) {
        groupId = try f.id("groupId")
        phone = try f.optionalString("phone")
        email = try f.optionalString("email")
        role = try f.optionalString("role")
        expiresInHours = try f.optionalInt("expiresInHours")
    }
}

/// `invite_redeem`.
public struct InviteRedeemCommand: Sendable, JSONFieldsDecodable {
    public var code: String
    public init(fields f: JSONFields) throws(GatewayError) { code = try f.string("code") }
}

/// `discover`: address-book entries as phone numbers (normalised server-side to E.164) and/or SHA-256 hex hashes
/// of E.164 numbers.
public struct DiscoverCommand: Sendable, JSONFieldsDecodable {
    public var numbers: [String]?
    public var hashes: [String]?

    public init(fields f: JSONFields) throws(GatewayError) {
        numbers = try f.optionalStrings("numbers")
        hashes = try f.optionalStrings("hashes")
    }
}
