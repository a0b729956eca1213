import HTTP1
import Testing
@testable import ServerAPIRoutes

/// The route table: every method and path of the server API to its typed request, with the path's ids.
@Suite struct APIRouteTableTests {
    @Test(arguments: [
        ("GET", "/v1/users/alice", APIRequest.getUser(userId: "alice")),
        ("GET", "/v1/users/alice/approvals", .pendingApprovals(userId: "alice")),
        ("GET", "/v1/sessions/s1", .getSession(sessionId: "s1")),
        ("POST", "/v1/sessions/s1/end", .endSession(sessionId: "s1")),
        ("GET", "/v1/approvals/a1", .getApproval(approvalId: "a1", waitMs: 0)),
        ("GET", "/v1/approvals/a1?wait=2.5", .getApproval(approvalId: "a1", waitMs: 2_500)),
        ("GET", "/v1/approvals/a1?wait=1e300", .getApproval(approvalId: "a1", waitMs: 60_000)),
        ("GET", "/v1/approvals/a1?wait=-0", .getApproval(approvalId: "a1", waitMs: 0)),
        ("DELETE", "/v1/users/alice/phone", .removePhone(userId: "alice")),
        ("GET", "/v1/users/alice/contacts", .contacts(userId: "alice")),
        ("GET", "/v1/users/alice/friend-requests", .friendRequests(userId: "alice")),
        ("GET", "/v1/users/alice/blocks", .blocks(userId: "alice")),
        ("PUT", "/v1/users/alice/blocks/bob", .block(userId: "alice", otherId: "bob")),
        ("DELETE", "/v1/users/alice/blocks/bob", .unblock(userId: "alice", otherId: "bob")),
        ("GET", "/v1/users/alice/connect-code", .connectCode(userId: "alice")),
        ("POST", "/v1/users/alice/connect-code", .regenerateConnectCode(userId: "alice")),
        ("GET", "/v1/groups/g1", .getGroup(groupId: "g1")),
        ("DELETE", "/v1/groups/g1/members/bob", .removeGroupMember(groupId: "g1", userId: "bob")),
        // Segments are percent-decoded before matching: the same resource either way.
        ("GET", "/v1/users/o%27neil", .getUser(userId: "o'neil")),
    ])
    func aRouteWithoutBodyCarriesThePathIds(_ method: String, _ target: String, _ expected: APIRequest) throws {
        #expect(try typed(method, target).get() == expected)
    }

    @Test func bodiesAreReadIntoTheirRoutes() throws {
        #expect(try typed("POST", "/v1/users", body: #"{"userId":"alice","displayName":"Alice"}"#).get()
                == .upsertUser(try UserBody.decode(Array(#"{"userId":"alice","displayName":"Alice"}"#.utf8))))
        guard case .addContact(let add) = try typed("POST", "/v1/contacts", body: #"{"userA":"a","userB":"b"}"#).get(),
              case .removeContact(let remove) = try typed("DELETE", "/v1/contacts", body: #"{"userA":"a","userB":"b"}"#).get() else {
            Issue.record("contacts routes"); return
        }
        #expect(add == remove && add.userA == "a" && add.userB == "b")
        guard case .answerFriendRequest("r1", .cancel, let actor) = try typed("POST", "/v1/friend-requests/r1/cancel", body: #"{"userId":"bob"}"#).get() else {
            Issue.record("friend request answer"); return
        }
        #expect(actor.userId == "bob")
        guard case .redeemInvite("CODE1", let redeemer) = try typed("POST", "/v1/invites/CODE1/redeem", body: #"{"userId":"carol"}"#).get() else {
            Issue.record("invite redemption"); return
        }
        #expect(redeemer.userId == "carol")
        guard case .pauseContact(let pause) = try typed("POST", "/v1/contacts/pause", body: #"{"userId":"a","contactId":"b"}"#).get(),
              case .resumeContact = try typed("POST", "/v1/contacts/resume", body: #"{"userId":"a","contactId":"b"}"#).get() else {
            Issue.record("pause routes"); return
        }
        #expect(pause.contactId == "b")
        guard case .createGroup(let group) = try typed("POST", "/v1/groups", body: #"{"ownerId":"a","name":"Fam","roleLimits":{"parent":2}}"#).get() else {
            Issue.record("group creation"); return
        }
        #expect(group.roleLimits == ["parent": 2] && group.groupId == nil && group.maxMembers == nil)
    }

    @Test func pushTokenRoutesNameTheDeviceWithOrWithoutItsUser() throws {
        let token = #"{"kind":"apns","token":"abc"}"#
        guard case .registerPushToken(let bare, let body) = try typed("POST", "/v1/devices/d1/push-tokens", body: token).get(),
              case .registerPushToken(let owned, _) = try typed("POST", "/v1/users/u1/devices/d1/push-tokens", body: token).get(),
              case .unregisterPushToken(let removed, let kind) = try typed("DELETE", "/v1/devices/d1/push-tokens", body: #"{"kind":"apns"}"#).get() else {
            Issue.record("push token routes"); return
        }
        #expect(bare == APIDeviceRef(userId: nil, deviceId: "d1") && owned == APIDeviceRef(userId: "u1", deviceId: "d1") && removed == bare)
        #expect(body.kind == "apns" && body.token == "abc" && kind.kind == "apns")
    }

    @Test func theIdempotencyHeaderWinsOverTheBody() throws {
        let body = #"{"name":"n","idempotencyKey":"from-body"}"#
        #expect(try typed("POST", "/v1/users/u/events", body: body).get()
                == .publishUserEvent(userId: "u", try PublishBody.decode(Array(body.utf8)), idempotencyKey: "from-body"))
        guard case .publishUserEvent(_, _, "from-header") = try typed("POST", "/v1/users/u/events", body: body,
                                                                      headers: [("Idempotency-Key", "from-header")]).get(),
              case .requestApproval("s", _, "h2") = try typed("POST", "/v1/sessions/s/approvals", body: #"{"toolName":"t","summary":"s"}"#,
                                                             headers: [("Idempotency-Key", "h2")]).get() else {
            Issue.record("the header's key was not used"); return
        }
    }

    @Test func whoMayCallEachRoute() {
        func caller(_ method: String, _ path: String) -> APICaller? {
            if case .route(let route) = APIRoutes.match(HTTPRequestHead(method: method, target: path), standalone: true) { return route.caller }
            return nil
        }
        #expect(caller("POST", "/v1/devices/register") == .anyone)
        #expect(caller("PUT", "/v1/users/me/display-name") == .device)
        #expect(caller("GET", "/v1/users/alice") == .backend)
        #expect(caller("POST", "/v1/invites/c/redeem") == .backend)
    }

    @Test func registrationIsNoRouteWhileStandaloneIsOff() {
        guard case .notMine = APIRoutes.match(HTTPRequestHead(method: "POST", target: "/v1/devices/register"), standalone: false),
              case .notMine = APIRoutes.match(HTTPRequestHead(method: "GET", target: "/v1/devices/register"), standalone: false),
              case .notMine = APIRoutes.match(HTTPRequestHead(method: "GET", target: "/demo"), standalone: true) else {
            Issue.record("registration matched with standalone off, or a path outside /v1/ matched"); return
        }
    }
}
