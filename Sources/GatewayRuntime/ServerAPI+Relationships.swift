import FoundationEssentials
import Gateway
import GatewayProtocol
import HTTP1
import ServerAPIRoutes

/// The executor of the backend's relationship requests. Each calls the same hub method as the client command, for
/// the user the body or path names; documented with curl examples in docs/PROTOCOL.md.
extension ServerAPI {
    private struct PhoneResult: Encodable { var userId: String; var phone: String? }
    private struct Entries: Encodable { var entries: [DiscoveryEntry] }
    private struct Contacts: Encodable { var contacts: [ContactStateData] }
    private struct Blocks: Encodable { var blocks: [BlockData] }
    private struct Unblocked: Encodable {}

    /// Runs a relationship request (every request `execute` does not run itself).
    func executeRelationship(_ request: APIRequest, respond: @escaping Respond) {
        switch request {
        case .setPhone(let id, let body):
            onHub(users: [id], respond: respond) { $0.setPhone(userId: id, phone: body.phone) { Self.reply(respond)($0.map { PhoneResult(userId: id, phone: $0) }) } }
        case .removePhone(let id):
            onHub(users: [id], respond: respond) { $0.setPhone(userId: id, phone: nil) { Self.reply(respond)($0.map { PhoneResult(userId: id, phone: $0) }) } }
        case .contacts(let id):
            onHub(users: [id], shown: { $0.contactIds(of: id) }, respond: respond) { respond(Self.ok(Contacts(contacts: $0.contactList(of: id)))) }
        case .friendRequests(let id):
            onHub(users: [id], shown: { $0.friendRequestUsers(of: id) }, respond: respond) { respond(Self.ok($0.friendRequests(of: id))) }
        case .blocks(let id):
            onHub(users: [id], shown: { $0.blockedUsers(of: id) }, respond: respond) { respond(Self.ok(Blocks(blocks: $0.blocks(of: id)))) }
        case .block(let id, let other):
            onHub(users: [id, other], respond: respond) { $0.blockUser(id, other, completion: Self.reply(respond)) }
        case .unblock(let id, let other):
            onHub(users: [id, other], respond: respond) { $0.unblockUser(id, other) { Self.reply(respond)($0.map { Unblocked() }) } }
        case .connectCode(let id):
            onHub(users: [id], respond: respond) { $0.connectCode(for: id, regenerate: false, completion: Self.reply(respond)) }
        case .regenerateConnectCode(let id):
            onHub(users: [id], respond: respond) { $0.connectCode(for: id, regenerate: true, completion: Self.reply(respond, status: 201)) }
        case .discover(let id, let body):
            onHub(users: [id], respond: respond) { hub in
                guard hub.user(id) != nil else { return respond(Self.failure(GatewayError(.userNotFound, "no user \"\(id)\""))) }
                hub.discover(userId: id, numbers: body.numbers ?? [], hashes: body.hashes ?? []) {
                    Self.reply(respond)($0.map { Entries(entries: $0) })
                }
            }
        case .sendFriendRequest(let body):
            onHub(users: [body.fromUserId], respond: respond) { $0.sendFriendRequest(from: body.fromUserId, toHexCode: body.toHexCode, completion: Self.reply(respond, status: 201)) }
        case .answerFriendRequest(let id, let answer, let body):
            let action: GatewayHub.FriendRequestAction = switch answer {
            case .accept: .accept
            case .reject: .reject
            case .cancel: .cancel
            }
            onHub(users: [body.userId], respond: respond) { $0.answerFriendRequest(userId: body.userId, requestId: id, action: action, completion: Self.reply(respond)) }
        case .connect(let body):
            onHub(users: [body.userId], respond: respond) { $0.connect(userId: body.userId, code: body.code, completion: Self.reply(respond, status: 201)) }
        case .pauseContact(let body):
            onHub(users: [body.userId, body.contactId], respond: respond) { $0.pauseContact(userId: body.userId, contactId: body.contactId, completion: Self.reply(respond)) }
        case .resumeContact(let body):
            onHub(users: [body.userId, body.contactId], respond: respond) { $0.resumeContact(userId: body.userId, contactId: body.contactId, completion: Self.reply(respond)) }
        case .createGroup(let body):
            let spec = GatewayHub.GroupSpec(id: body.groupId, name: body.name, kind: body.kind, maxMembers: body.maxMembers,
                                            invitePolicy: body.invitePolicy, roleLimits: body.roleLimits)
            onHub(users: [body.ownerId], respond: respond) { $0.createGroup(ownerId: body.ownerId, spec, completion: Self.reply(respond, status: 201)) }
        case .getGroup(let id):
            onHub { hub in
                hub.withGroup(id, failed: { respond(Self.failure($0)) }) {
                    respond(hub.groupData(id).map { Self.ok($0) } ?? Self.failure(GatewayError(.groupNotFound, "no group \"\(id)\"")))
                }
            }
        case .addGroupMember(let id, let body):
            onHub(users: [body.userId], respond: respond) { $0.addGroupMember(groupId: id, userId: body.userId, role: body.role, completion: Self.reply(respond)) }
        case .removeGroupMember(let id, let member):
            onHub { $0.removeGroupMember(groupId: id, userId: member, actor: nil, completion: Self.reply(respond)) }
        case .createInvite(let id, let body):
            let spec = GatewayHub.InviteSpec(phone: body.phone, email: body.email, role: body.role, expiresInHours: body.expiresInHours)
            onHub(users: [body.inviterId], respond: respond) { $0.createInvite(inviterId: body.inviterId, groupId: id, spec, completion: Self.reply(respond, status: 201)) }
        case .sendGroupEvent(let id, let body):
            onHub { $0.sendGroupEvent(from: nil, groupId: id, name: body.name, payload: body.payload, completion: Self.reply(respond, status: 201)) }
        case .redeemInvite(let code, let body):
            onHub(users: [body.userId], respond: respond) { $0.redeemInvite(userId: body.userId, code: code, completion: Self.reply(respond)) }
        default:
            // Every other request is run by `execute`, which hands only these here.
            respond(Self.failure(GatewayError(.internalError, "request routed to the wrong executor")))
        }
    }
}
