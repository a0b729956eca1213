import FoundationEssentials
import GatewayProtocol

/// Client commands of the relationship flows (already decoded, `RelationshipCommand`): each calls the same hub method the server API
/// uses (with the caller as the actor), and answers exactly once.
extension GatewayHub {
    func relationshipCommand(_ command: RelationshipCommand, client: GatewayClient, reply: Reply) throws {
        let me = client.userId
        switch command {
        case .friendRequest(let command):
            sendFriendRequest(from: me, toHexCode: command.hexCode, source: client.sourceAddress, completion: reply.complete)
        case .friendRequests:
            reply.ok(friendRequests(of: me))
        case .friendRequestAccept(let command):
            answerFriendRequest(userId: me, requestId: command.requestId, action: .accept, completion: reply.complete)
        case .friendRequestReject(let command):
            answerFriendRequest(userId: me, requestId: command.requestId, action: .reject, completion: reply.complete)
        case .friendRequestCancel(let command):
            answerFriendRequest(userId: me, requestId: command.requestId, action: .cancel, completion: reply.complete)
        case .connectCode(let command):
            connectCode(for: me, regenerate: command.regenerate ?? false, completion: reply.complete)
        case .connect(let command):
            connect(userId: me, code: command.code, source: client.sourceAddress, completion: reply.complete)
        case .contacts:
            reply.ok(["contacts": contactList(of: me)])
        case .contactPause(let command):
            pauseContact(userId: me, contactId: command.userId, completion: reply.complete)
        case .contactResume(let command):
            resumeContact(userId: me, contactId: command.userId, completion: reply.complete)
        case .contactRemove(let command):
            let other = command.userId
            guard contacts[me]?[other]?.active == true else { throw GatewayError(.notAContact, "\"\(other)\" is not your contact") }
            removeContact(me, other) { reply.complete($0.map { Empty() }) }
        case .sendEvent(let command):
            switch (command.to, command.groupId) {
            case (let to?, nil):
                sendContactEvent(from: me, to: to, name: command.name, payload: command.payload, completion: reply.complete)
            case (nil, let groupId?):
                asMember(of: groupId, me, reply: reply) { [self] in
                    sendGroupEvent(from: me, groupId: groupId, name: command.name, payload: command.payload, completion: reply.complete)
                }
            default:
                throw GatewayError(.invalidField, "give exactly one of \"to\" and \"groupId\"")
            }
        case .groupCreate(let c):
            createGroup(ownerId: me, GroupSpec(name: c.name, kind: c.kind, maxMembers: c.maxMembers, invitePolicy: c.invitePolicy,
                                               roleLimits: c.roleLimits), completion: reply.complete)
        case .groupGet(let command):
            asMember(of: command.groupId, me, reply: reply) { [self] in
                guard let group = groupData(command.groupId) else { return reply.fail(GatewayError(hiddenGroup: command.groupId)) }
                reply.ok(group)
            }
        case .groupList:
            reply.ok(["groups": groups(of: me)])
        case .groupLeave(let command):
            asMember(of: command.groupId, me, reply: reply) { [self] in
                removeGroupMember(groupId: command.groupId, userId: me, actor: me) { reply.complete($0.map { _ in Empty() }) }
            }
        case .groupRemoveMember(let c):
            asMember(of: c.groupId, me, reply: reply) { [self] in
                removeGroupMember(groupId: c.groupId, userId: c.userId, actor: me, completion: reply.complete)
            }
        case .groupSendMessage(let c):
            asMember(of: c.groupId, me, reply: reply) { [self] in
                sendGroupMessage(from: me, groupId: c.groupId, text: c.text, clientMessageId: c.clientMessageId, completion: reply.complete)
            }
        case .inviteCreate(let c):
            asMember(of: c.groupId, me, reply: reply) { [self] in
                createInvite(inviterId: me, groupId: c.groupId, InviteSpec(phone: c.phone, email: c.email, role: c.role, expiresInHours: c.expiresInHours),
                             completion: reply.complete)
            }
        case .inviteRedeem(let command):
            redeemInvite(userId: me, code: command.code, source: client.sourceAddress, completion: reply.complete)
        case .discover(let c):
            discover(userId: me, numbers: c.numbers ?? [], hashes: c.hashes ?? [], source: client.sourceAddress) {
                reply.complete($0.map { ["entries": $0] })
            }
        case .block(let command):
            blockUser(me, command.userId, completion: reply.complete)
        case .unblock(let command):
            unblockUser(me, command.userId) { reply.complete($0.map { Empty() }) }
        case .blocks:
            reply.ok(["blocks": blocks(of: me)])
        }
    }

    /// Runs `body` (on the hub thread, the group loaded) when `userId` is an active member of the group; otherwise
    /// answers as for a missing group (`GroupMembership.isVisible`). Every group command of a client goes through
    /// here first, so a non-member gets the same `group_not_found` whether or not the group exists, before any other
    /// rule (text, name, role) could tell the two apart.
    private func asMember(of groupId: String, _ userId: String, reply: Reply, _ body: @escaping () -> Void) {
        guard loadedGroup(groupId, plus: [], failed: { reply.fail($0) }, retry: { [self] in
            asMember(of: groupId, userId, reply: reply, body)
        }) else { return }
        let state = relations.groups[groupId].map { GroupMembership.State(group: $0, members: relations.members[groupId] ?? [:]) }
        guard GroupMembership.isVisible(state, to: userId) else { return reply.fail(GatewayError(hiddenGroup: groupId)) }
        body()
    }
}
