import FoundationEssentials
import GatewayProtocol

/// Client commands of the relationship flows: each decodes its body, calls the same hub method the server API
/// uses (with the caller as the actor), and answers exactly once.
extension GatewayHub {
    static let relationshipCommandTypes: Set<String> = [
        "friend_request", "friend_requests", "friend_request_accept", "friend_request_reject", "friend_request_cancel",
        "connect_code", "connect", "contacts", "contact_pause", "contact_resume", "contact_remove", "send_event",
        "group_create", "group_get", "group_list", "group_leave", "group_remove_member", "group_send_message",
        "invite_create", "invite_redeem", "discover",
    ]

    func relationshipCommand(_ type: String, data: JSONValue, client: GatewayClient, reply: Reply) throws {
        let me = client.userId
        switch type {
        case "friend_request":
            let command = try decoder.decode(FriendRequestCommand.self, from: data)
            sendFriendRequest(from: me, toHexCode: command.hexCode, completion: reply.complete)
        case "friend_requests":
            reply.ok(friendRequests(of: me))
        case "friend_request_accept", "friend_request_reject", "friend_request_cancel":
            let command = try decoder.decode(FriendRequestAnswerCommand.self, from: data)
            let action = FriendRequestAction(rawValue: String(type.dropFirst("friend_request_".count)))!
            answerFriendRequest(userId: me, requestId: command.requestId, action: action, completion: reply.complete)
        case "connect_code":
            let command = try decoder.decode(ConnectCodeCommand.self, from: data)
            connectCode(for: me, regenerate: command.regenerate ?? false, completion: reply.complete)
        case "connect":
            let command = try decoder.decode(ConnectCommand.self, from: data)
            connect(userId: me, code: command.code, source: client.sourceAddress, completion: reply.complete)
        case "contacts":
            reply.ok(["contacts": contactList(of: me)])
        case "contact_pause":
            pauseContact(userId: me, contactId: try decoder.decode(ContactCommand.self, from: data).userId, completion: reply.complete)
        case "contact_resume":
            resumeContact(userId: me, contactId: try decoder.decode(ContactCommand.self, from: data).userId, completion: reply.complete)
        case "contact_remove":
            let other = try decoder.decode(ContactCommand.self, from: data).userId
            guard contacts[me]?[other]?.active == true else { throw GatewayError(.notAContact, "\"\(other)\" is not your contact") }
            removeContact(me, other) { reply.complete($0.map { Empty() }) }
        case "send_event":
            let command = try decoder.decode(SendEventCommand.self, from: data)
            switch (command.to, command.groupId) {
            case (let to?, nil):
                sendContactEvent(from: me, to: to, name: command.name, payload: command.payload, completion: reply.complete)
            case (nil, let groupId?):
                sendGroupEvent(from: me, groupId: groupId, name: command.name, payload: command.payload, completion: reply.complete)
            default:
                throw GatewayError(.invalidField, "give exactly one of \"to\" and \"groupId\"")
            }
        case "group_create":
            let c = try decoder.decode(GroupCreateCommand.self, from: data)
            createGroup(ownerId: me, GroupSpec(name: c.name, kind: c.kind, maxMembers: c.maxMembers, invitePolicy: c.invitePolicy,
                                               roleLimits: c.roleLimits), completion: reply.complete)
        case "group_get":
            let groupId = try decoder.decode(GroupCommand.self, from: data).groupId
            // Non-members learn nothing about a group, not even that it exists.
            guard relations.isActiveMember(me, of: groupId), let group = groupData(groupId) else {
                throw GatewayError(.groupNotFound, "no group \"\(groupId)\" of yours")
            }
            reply.ok(group)
        case "group_list":
            reply.ok(["groups": groups(of: me)])
        case "group_leave":
            let groupId = try decoder.decode(GroupCommand.self, from: data).groupId
            removeGroupMember(groupId: groupId, userId: me, actor: me) { reply.complete($0.map { _ in Empty() }) }
        case "group_remove_member":
            let c = try decoder.decode(GroupMemberCommand.self, from: data)
            removeGroupMember(groupId: c.groupId, userId: c.userId, actor: me, completion: reply.complete)
        case "group_send_message":
            let c = try decoder.decode(GroupSendMessageCommand.self, from: data)
            sendGroupMessage(from: me, groupId: c.groupId, text: c.text, clientMessageId: c.clientMessageId, completion: reply.complete)
        case "invite_create":
            let c = try decoder.decode(InviteCreateCommand.self, from: data)
            createInvite(inviterId: me, groupId: c.groupId, InviteSpec(phone: c.phone, email: c.email, role: c.role, expiresInHours: c.expiresInHours),
                         completion: reply.complete)
        case "invite_redeem":
            redeemInvite(userId: me, code: try decoder.decode(InviteRedeemCommand.self, from: data).code, completion: reply.complete)
        case "discover":
            let c = try decoder.decode(DiscoverCommand.self, from: data)
            reply.ok(["entries": try discover(userId: me, numbers: c.numbers ?? [], hashes: c.hashes ?? [])])
        default:
            throw GatewayError(.unknownType, "unknown command type \"\(type)\"")
        }
    }
}
