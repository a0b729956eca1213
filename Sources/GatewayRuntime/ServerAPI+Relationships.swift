import FoundationEssentials
import Gateway
import GatewayProtocol
import HTTP1

/// Backend routes of the relationship flows (API key checked by the caller). Each calls the same hub method as
/// the client command, naming the acting user in the body; documented with curl examples in docs/PROTOCOL.md.
extension ServerAPI {
    private struct PhoneBody: JSONFieldsDecodable {
        var phone: String
        init(fields f: JSONFields) throws(GatewayError) { phone = try f.string("phone") }
    }
    private struct PhoneResult: Encodable { var userId: String; var phone: String? }
    private struct FriendRequestBody: JSONFieldsDecodable {
        var fromUserId: String; var toHexCode: String
        init(fields f: JSONFields) throws(GatewayError) { fromUserId = try f.id("fromUserId"); toHexCode = try f.string("toHexCode") }
    }
    private struct ActorBody: JSONFieldsDecodable {
        var userId: String
        init(fields f: JSONFields) throws(GatewayError) { userId = try f.id("userId") }
    }
    private struct ConnectBody: JSONFieldsDecodable {
        var userId: String; var code: String
        init(fields f: JSONFields) throws(GatewayError) { userId = try f.id("userId"); code = try f.string("code") }
    }
    private struct PauseBody: JSONFieldsDecodable {
        var userId: String; var contactId: String
        init(fields f: JSONFields) throws(GatewayError) { userId = try f.id("userId"); contactId = try f.id("contactId") }
    }
    private struct GroupBody: JSONFieldsDecodable {
        var ownerId: String; var groupId: String?; var name: String; var kind: String?; var maxMembers: Int?
        var invitePolicy: String?; var roleLimits: [String: Int]?
        init(fields f: JSONFields) throws(GatewayError) {
            ownerId = try f.id("ownerId"); groupId = try f.optionalID("groupId"); name = try f.string("name")
            kind = try f.optionalString("kind"); maxMembers = try f.optionalInt("maxMembers")
            invitePolicy = try f.optionalString("invitePolicy"); roleLimits = try f.optionalIntMap("roleLimits")
        }
    }
    private struct MemberBody: JSONFieldsDecodable {
        var userId: String; var role: String?
        init(fields f: JSONFields) throws(GatewayError) { userId = try f.id("userId"); role = try f.optionalString("role") }
    }
    private struct InviteBody: JSONFieldsDecodable {
        var inviterId: String; var phone: String?; var email: String?; var role: String?; var expiresInHours: Int?
        init(fields f: JSONFields) throws(GatewayError) {
            inviterId = try f.id("inviterId"); phone = try f.optionalString("phone"); email = try f.optionalString("email")
            role = try f.optionalString("role"); expiresInHours = try f.optionalInt("expiresInHours")
        }
    }
    private struct GroupEventBody: JSONFieldsDecodable {
        var name: String; var payload: JSONValue?
        init(fields f: JSONFields) throws(GatewayError) { name = try f.string("name"); payload = f.optionalJSON("payload") }
    }
    private struct DiscoverBody: JSONFieldsDecodable {
        var numbers: [String]?; var hashes: [String]?
        init(fields f: JSONFields) throws(GatewayError) { numbers = try f.optionalStrings("numbers"); hashes = try f.optionalStrings("hashes") }
    }
    private struct Entries: Encodable { var entries: [DiscoveryEntry] }
    private struct Contacts: Encodable { var contacts: [ContactStateData] }
    private struct Blocks: Encodable { var blocks: [BlockData] }
    private struct Unblocked: Encodable {}

    /// Answers the request when the route is one of these; false otherwise (the caller answers 404).
    func relationshipRoute(_ route: [String], request: HTTPRequest, respond: @escaping Respond) -> Bool {
        let method = request.head.method
        let r = route + Array(repeating: "", count: max(0, 5 - route.count))   // pad for simple matching
        switch (method, route.count, r[0], r[2], r[3]) {
        case ("PUT", 3, "users", "phone", ""):
            guard let body = decode(PhoneBody.self, request, respond: respond) else { return true }
            let id = r[1]
            onHub(users: [id], respond: respond) { $0.setPhone(userId: id, phone: body.phone) { Self.reply(respond)($0.map { PhoneResult(userId: id, phone: $0) }) } }
        case ("DELETE", 3, "users", "phone", ""):
            let id = r[1]
            onHub(users: [id], respond: respond) { $0.setPhone(userId: id, phone: nil) { Self.reply(respond)($0.map { PhoneResult(userId: id, phone: $0) }) } }
        case ("GET", 3, "users", "contacts", ""):
            let id = r[1]
            onHub(users: [id], shown: { $0.contactIds(of: id) }, respond: respond) { respond(Self.ok(Contacts(contacts: $0.contactList(of: id)))) }
        case ("GET", 3, "users", "friend-requests", ""):
            let id = r[1]
            onHub(users: [id], shown: { $0.friendRequestUsers(of: id) }, respond: respond) { respond(Self.ok($0.friendRequests(of: id))) }
        case ("GET", 3, "users", "blocks", ""):
            let id = r[1]
            onHub(users: [id], shown: { $0.blockedUsers(of: id) }, respond: respond) { respond(Self.ok(Blocks(blocks: $0.blocks(of: id)))) }
        case ("PUT", 4, "users", "blocks", _), ("DELETE", 4, "users", "blocks", _):
            let (id, other) = (r[1], r[3])
            guard Self.validID(other) else { respond(Self.badID("blocked user id")); return true }
            onHub(users: [id, other], respond: respond) { hub in
                if method == "PUT" { hub.blockUser(id, other, completion: Self.reply(respond)) }
                else { hub.unblockUser(id, other) { Self.reply(respond)($0.map { Unblocked() }) } }
            }
        case ("GET", 3, "users", "connect-code", ""), ("POST", 3, "users", "connect-code", ""):
            let (id, regenerate) = (r[1], method == "POST")
            onHub(users: [id], respond: respond) { $0.connectCode(for: id, regenerate: regenerate, completion: Self.reply(respond, status: regenerate ? 201 : 200)) }
        case ("POST", 3, "users", "discover", ""):
            guard let body = decode(DiscoverBody.self, request, respond: respond) else { return true }
            let id = r[1]
            onHub(users: [id], respond: respond) { hub in
                guard hub.user(id) != nil else { return respond(Self.failure(GatewayError(.userNotFound, "no user \"\(id)\""))) }
                hub.discover(userId: id, numbers: body.numbers ?? [], hashes: body.hashes ?? []) {
                    Self.reply(respond)($0.map { Entries(entries: $0) })
                }
            }
        case ("POST", 1, "friend-requests", _, _):
            guard let body = decode(FriendRequestBody.self, request, respond: respond) else { return true }
            onHub(users: [body.fromUserId], respond: respond) { $0.sendFriendRequest(from: body.fromUserId, toHexCode: body.toHexCode, completion: Self.reply(respond, status: 201)) }
        case ("POST", 3, "friend-requests", "accept", ""), ("POST", 3, "friend-requests", "reject", ""),
             ("POST", 3, "friend-requests", "cancel", ""):
            guard let body = decode(ActorBody.self, request, respond: respond),
                  let action = GatewayHub.FriendRequestAction(rawValue: r[2]) else { return true }
            let id = r[1]
            onHub(users: [body.userId], respond: respond) { $0.answerFriendRequest(userId: body.userId, requestId: id, action: action, completion: Self.reply(respond)) }
        case ("POST", 1, "connections", _, _):
            guard let body = decode(ConnectBody.self, request, respond: respond) else { return true }
            onHub(users: [body.userId], respond: respond) { $0.connect(userId: body.userId, code: body.code, completion: Self.reply(respond, status: 201)) }
        case ("POST", 2, "contacts", _, _) where r[1] == "pause" || r[1] == "resume":
            guard let body = decode(PauseBody.self, request, respond: respond) else { return true }
            let pause = r[1] == "pause"
            onHub(users: [body.userId, body.contactId], respond: respond) { hub in
                if pause { hub.pauseContact(userId: body.userId, contactId: body.contactId, completion: Self.reply(respond)) }
                else { hub.resumeContact(userId: body.userId, contactId: body.contactId, completion: Self.reply(respond)) }
            }
        case ("POST", 1, "groups", _, _):
            guard let body = decode(GroupBody.self, request, respond: respond) else { return true }
            guard body.groupId.map(Self.validID) ?? true else { respond(Self.badID("groupId")); return true }
            let spec = GatewayHub.GroupSpec(id: body.groupId, name: body.name, kind: body.kind, maxMembers: body.maxMembers,
                                            invitePolicy: body.invitePolicy, roleLimits: body.roleLimits)
            onHub(users: [body.ownerId], respond: respond) { $0.createGroup(ownerId: body.ownerId, spec, completion: Self.reply(respond, status: 201)) }
        case ("GET", 2, "groups", _, _):
            let id = r[1]
            onHub { hub in
                hub.withGroup(id, failed: { respond(Self.failure($0)) }) {
                    respond(hub.groupData(id).map { Self.ok($0) } ?? Self.failure(GatewayError(.groupNotFound, "no group \"\(id)\"")))
                }
            }
        case ("POST", 3, "groups", "members", ""):
            guard let body = decode(MemberBody.self, request, respond: respond) else { return true }
            let id = r[1]
            onHub(users: [body.userId], respond: respond) { $0.addGroupMember(groupId: id, userId: body.userId, role: body.role, completion: Self.reply(respond)) }
        case ("DELETE", 4, "groups", "members", _):
            let (id, member) = (r[1], r[3])
            onHub { $0.removeGroupMember(groupId: id, userId: member, actor: nil, completion: Self.reply(respond)) }
        case ("POST", 3, "groups", "invites", ""):
            guard let body = decode(InviteBody.self, request, respond: respond) else { return true }
            let id = r[1]
            let spec = GatewayHub.InviteSpec(phone: body.phone, email: body.email, role: body.role, expiresInHours: body.expiresInHours)
            onHub(users: [body.inviterId], respond: respond) { $0.createInvite(inviterId: body.inviterId, groupId: id, spec, completion: Self.reply(respond, status: 201)) }
        case ("POST", 3, "groups", "events", ""):
            guard let body = decode(GroupEventBody.self, request, respond: respond) else { return true }
            let id = r[1]
            onHub { $0.sendGroupEvent(from: nil, groupId: id, name: body.name, payload: body.payload, completion: Self.reply(respond, status: 201)) }
        case ("POST", 3, "invites", "redeem", ""):
            guard let body = decode(ActorBody.self, request, respond: respond) else { return true }
            let code = r[1]
            onHub(users: [body.userId], respond: respond) { $0.redeemInvite(userId: body.userId, code: code, completion: Self.reply(respond)) }
        default:
            return false
        }
        return true
    }
}
