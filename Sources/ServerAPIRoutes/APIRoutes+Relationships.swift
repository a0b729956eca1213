import GatewayProtocol

/// The backend's relationship routes: each is the client command of the same name, acting for the user the body or
/// the path names (docs/PROTOCOL.md "Server API: relationships").
extension APIRoutes {
    /// The route `method` and `route` (the segments after `/v1`) name, nil when none does.
    static func relationshipRoute(_ method: String, _ route: [String]) -> Build? {
        let r = route + Array(repeating: "", count: max(0, 5 - route.count))   // pad for simple matching
        let (id, sub, last) = (r[1], r[2], r[3])
        switch (method, route.count, r[0], sub) {
        case ("PUT", 3, "users", "phone"):
            return { input throws(GatewayError) in .setPhone(userId: id, try input.body()) }
        case ("DELETE", 3, "users", "phone"):
            return { _ in .removePhone(userId: id) }
        case ("GET", 3, "users", "contacts"):
            return { _ in .contacts(userId: id) }
        case ("GET", 3, "users", "friend-requests"):
            return { _ in .friendRequests(userId: id) }
        case ("GET", 3, "users", "blocks"):
            return { _ in .blocks(userId: id) }
        case ("PUT", 4, "users", "blocks"):
            return { _ in .block(userId: id, otherId: last) }
        case ("DELETE", 4, "users", "blocks"):
            return { _ in .unblock(userId: id, otherId: last) }
        case ("GET", 3, "users", "connect-code"):
            return { _ in .connectCode(userId: id) }
        case ("POST", 3, "users", "connect-code"):
            return { _ in .regenerateConnectCode(userId: id) }
        case ("POST", 3, "users", "discover"):
            return { input throws(GatewayError) in .discover(userId: id, try input.body()) }
        case ("POST", 1, "friend-requests", _):
            return { input throws(GatewayError) in .sendFriendRequest(try input.body()) }
        case ("POST", 3, "friend-requests", _):
            guard let answer = FriendRequestAnswer(rawValue: sub) else { return nil }
            return { input throws(GatewayError) in .answerFriendRequest(requestId: id, answer, try input.body()) }
        case ("POST", 1, "connections", _):
            return { input throws(GatewayError) in .connect(try input.body()) }
        case ("POST", 2, "contacts", _) where id == "pause":
            return { input throws(GatewayError) in .pauseContact(try input.body()) }
        case ("POST", 2, "contacts", _) where id == "resume":
            return { input throws(GatewayError) in .resumeContact(try input.body()) }
        case ("POST", 1, "groups", _):
            return { input throws(GatewayError) in .createGroup(try input.body()) }
        case ("GET", 2, "groups", _):
            return { _ in .getGroup(groupId: id) }
        case ("POST", 3, "groups", "members"):
            return { input throws(GatewayError) in .addGroupMember(groupId: id, try input.body()) }
        case ("DELETE", 4, "groups", "members"):
            return { _ in .removeGroupMember(groupId: id, userId: last) }
        case ("POST", 3, "groups", "invites"):
            return { input throws(GatewayError) in .createInvite(groupId: id, try input.body()) }
        case ("POST", 3, "groups", "events"):
            return { input throws(GatewayError) in .sendGroupEvent(groupId: id, try input.body()) }
        case ("POST", 3, "invites", "redeem"):
            return { input throws(GatewayError) in .redeemInvite(code: id, try input.body()) }
        default:
            return nil
        }
    }
}
