import GatewayProtocol

// The bodies of the backend's relationship routes: each names the acting user, as the client command's identity
// would (docs/PROTOCOL.md "Server API: relationships").

/// `PUT /v1/users/{id}/phone`.
public struct PhoneBody: APIBody {
    public var phone: String
    public init(fields f: JSONFields) throws(GatewayError) { phone = try f.string("phone") }
}

/// `POST /v1/friend-requests`.
public struct FriendRequestBody: APIBody {
    public var fromUserId: String
    public var toHexCode: String
    public init(fields f: JSONFields) throws(GatewayError) { fromUserId = try f.id("fromUserId"); toHexCode = try f.string("toHexCode") }
}

/// The acting user of a route whose object is in the path (answering a friend request, redeeming an invite).
public struct ActorBody: APIBody {
    public var userId: String
    public init(fields f: JSONFields) throws(GatewayError) { userId = try f.id("userId") }
}

/// `POST /v1/connections`: a user redeems another's connect code.
public struct ConnectBody: APIBody {
    public var userId: String
    public var code: String
    public init(fields f: JSONFields) throws(GatewayError) { userId = try f.id("userId"); code = try f.string("code") }
}

/// `POST /v1/contacts/pause` and `/resume`.
public struct PauseBody: APIBody {
    public var userId: String
    public var contactId: String
    public init(fields f: JSONFields) throws(GatewayError) { userId = try f.id("userId"); contactId = try f.id("contactId") }
}

/// `POST /v1/groups`.
public struct GroupBody: APIBody {
    public var ownerId: String
    public var groupId: String?
    public var name: String
    public var kind: String?
    public var maxMembers: Int?
    public var invitePolicy: String?
    public var roleLimits: [String: Int]?
    public init(fields f: JSONFields) throws(GatewayError) {
        ownerId = try f.id("ownerId"); groupId = try f.optionalID("groupId"); name = try f.string("name")
        kind = try f.optionalString("kind"); maxMembers = try f.optionalInt("maxMembers")
        invitePolicy = try f.optionalString("invitePolicy"); roleLimits = try f.optionalIntMap("roleLimits")
    }
}

/// `POST /v1/groups/{id}/members`.
public struct MemberBody: APIBody {
    public var userId: String
    public var role: String?
    public init(fields f: JSONFields) throws(GatewayError) { userId = try f.id("userId"); role = try f.optionalString("role") }
}

/// `POST /v1/groups/{id}/invites`.
public struct InviteBody: APIBody {
    public var inviterId: String
    public var phone: String?
    public var email: String?
    public var role: String?
    public var expiresInHours: Int?
    public init(fields f: JSONFields) throws(GatewayError) {
        inviterId = try f.id("inviterId"); phone = try f.optionalString("phone"); email = try f.optionalString("email")
        role = try f.optionalString("role"); expiresInHours = try f.optionalInt("expiresInHours")
    }
}

/// `POST /v1/groups/{id}/events`.
public struct GroupEventBody: APIBody {
    public var name: String
    public var payload: JSONValue?
    public init(fields f: JSONFields) throws(GatewayError) { name = try f.string("name"); payload = f.optionalJSON("payload") }
}

/// `POST /v1/users/{id}/discover`: phone numbers or their hashes.
public struct DiscoverBody: APIBody {
    public var numbers: [String]?
    public var hashes: [String]?
    public init(fields f: JSONFields) throws(GatewayError) { numbers = try f.optionalStrings("numbers"); hashes = try f.optionalStrings("hashes") }
}
