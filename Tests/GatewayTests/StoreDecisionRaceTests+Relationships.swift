@testable import Gateway
import GatewayProtocol
import Testing

/// Friend requests and group joins are the store's decisions: another node's request or join between the hub's
/// look-up and its commit makes the hub answer what it would have answered had it seen that one first.
extension StoreDecisionRaceTests {
    func sendRequest(from sender: String, to target: String) throws -> (() -> Result<FriendRequestData, GatewayError>?) {
        let code = try #require(hub.users[target]?.hexCode)
        var result: Result<FriendRequestData, GatewayError>?
        hub.sendFriendRequest(from: sender, toHexCode: code) { result = $0 }
        return { result }
    }

    func refusal<T>(_ result: Result<T, GatewayError>?) -> GatewayErrorCode? {
        if case .failure(let error)? = result { return error.code }
        Issue.record("expected a refusal, got \(String(describing: result))")
        return nil
    }

    func storedContacts() throws -> Set<String> {
        Set(try store.inner.loadSnapshot().contacts.filter(\.active).map { "\($0.userId)->\($0.contactId)" })
    }

    @Test func aReverseRequestTheOtherNodeStoredFirstIsAcceptedInstead() throws {
        let sent = try sendRequest(from: "ann", to: "bob")
        #expect(store.pending.count == 1)
        let theirs = FriendRequestRecord(id: "frq_theirs", fromUserId: "bob", toUserId: "ann", createdAt: 1)
        otherNode([.createFriendRequest(theirs)])
        store.flush()
        let answer = try #require(try sent()?.get())
        #expect(answer.requestId == "frq_theirs" && answer.state == "accepted")
        let stored = try store.inner.loadSnapshot()
        #expect(stored.friendRequests.map(\.id) == ["frq_theirs"])        // ann's request was never stored
        #expect(stored.friendRequests.first?.state == .accepted)
        #expect(try storedContacts() == ["ann->bob", "bob->ann"])
        #expect(hub.friendRequests(of: "ann") == GatewayHub.FriendRequestLists(incoming: [], outgoing: []))
    }

    @Test func theSameRequestTheOtherNodeStoredFirstIsAlreadySent() throws {
        let sent = try sendRequest(from: "ann", to: "bob")
        otherNode([.createFriendRequest(FriendRequestRecord(id: "frq_theirs", fromUserId: "ann", toUserId: "bob", createdAt: 1))])
        store.flush()
        #expect(refusal(sent()) == .requestAlreadySent)
        #expect(try store.inner.loadSnapshot().friendRequests.map(\.id) == ["frq_theirs"])
        // Memory took the store's row: bob sees it, and a second send is refused without a commit.
        #expect(hub.friendRequests(of: "bob").incoming.map(\.requestId) == ["frq_theirs"])
        let again = try sendRequest(from: "ann", to: "bob")
        #expect(store.pending.isEmpty && refusal(again()) == .requestAlreadySent)
    }

    @Test func anAcceptLosingToACancelOnTheOtherNodeIsAlreadyResolved() throws {
        let sent = try sendRequest(from: "ann", to: "bob")
        store.flush()
        let request = try #require(try sent()?.get())
        var accepted: Result<FriendRequestData, GatewayError>?
        hub.answerFriendRequest(userId: "bob", requestId: request.requestId, action: .accept) { accepted = $0 }
        var cancelled = try #require(try store.inner.loadSnapshot().friendRequests.first)
        cancelled.state = .cancelled
        cancelled.resolvedAt = 5
        otherNode([.resolveFriendRequest(cancelled)])
        store.flush()
        #expect(refusal(accepted) == .requestAlreadyResolved)
        #expect(try store.inner.loadSnapshot().friendRequests == [cancelled])
        #expect(try storedContacts().isEmpty)
        // Memory was put back and took the store's row: no contact, nothing pending.
        #expect(!hub.areContacts("ann", "bob") && hub.friendRequests(of: "bob").incoming.isEmpty)
    }

    @Test func aContactMadeWhileTheOtherNodeRejectedTheRequestIsStillMade() throws {
        let sent = try sendRequest(from: "ann", to: "bob")
        store.flush()
        _ = try #require(try sent()?.get())
        var added: Result<Void, GatewayError>?
        hub.addContact("ann", "bob") { added = $0 }
        var rejected = try #require(try store.inner.loadSnapshot().friendRequests.first)
        rejected.state = .rejected
        rejected.resolvedAt = 5
        otherNode([.resolveFriendRequest(rejected)])
        store.flush()
        #expect((try? added?.get()) != nil)
        #expect(try store.inner.loadSnapshot().friendRequests == [rejected])   // the store's answer stands
        #expect(try storedContacts() == ["ann->bob", "bob->ann"])
    }

    func group(maxMembers: Int, roleLimits: [String: Int]? = nil) throws -> String {
        var group: GroupData?
        hub.createGroup(ownerId: "ann", .init(name: "Family", maxMembers: maxMembers, invitePolicy: "members", roleLimits: roleLimits)) {
            group = try? $0.get()
        }
        store.flush()
        return try #require(group?.groupId)
    }

    /// A stored invite of ann's into the group.
    func invite(into groupId: String) throws -> String {
        var invite: InviteData?
        hub.createInvite(inviterId: "ann", groupId: groupId, .init()) { invite = try? $0.get() }
        store.flush()
        return try #require(invite?.code)
    }

    func activeMembers(_ groupId: String) throws -> [String] {
        try store.inner.loadSnapshot().groupMembers.filter { $0.groupId == groupId && $0.active }.map(\.userId).sorted()
    }

    @Test func aJoinThatNoLongerFitsAfterTheOtherNodesIsGroupFull() throws {
        let groupId = try group(maxMembers: 2)
        var joined: Result<GroupData, GatewayError>?
        hub.addGroupMember(groupId: groupId, userId: "bob", role: nil) { joined = $0 }
        otherNode([.joinGroup(GroupMemberRecord(groupId: groupId, userId: "carol", role: "member", createdAt: 1))])
        store.flush()
        #expect(refusal(joined) == .groupFull)
        #expect(try activeMembers(groupId) == ["ann", "carol"])
        #expect(hub.groupData(groupId)?.members.map(\.user.userId).sorted() == ["ann", "carol"])   // memory took the store's rows
    }

    @Test func aRoleLimitReachedOnTheOtherNodeIsGroupFullButAnotherRoleStillJoins() throws {
        let groupId = try group(maxMembers: 5, roleLimits: ["parent": 1])
        var parent: Result<GroupData, GatewayError>?
        hub.addGroupMember(groupId: groupId, userId: "bob", role: "parent") { parent = $0 }
        otherNode([.joinGroup(GroupMemberRecord(groupId: groupId, userId: "carol", role: "parent", createdAt: 1))])
        store.flush()
        #expect(refusal(parent) == .groupFull)
        // Memory took the store's rows: the parent is carol, and bob still fits in another role.
        var child: Result<GroupData, GatewayError>?
        hub.addGroupMember(groupId: groupId, userId: "bob", role: "child") { child = $0 }
        store.flush()
        #expect(try child?.get().members.map(\.user.userId).sorted() == ["ann", "bob", "carol"])
        #expect(try activeMembers(groupId) == ["ann", "bob", "carol"])
    }

    @Test func anInviteRedeemedIntoAGroupTheOtherNodeFilledIsGroupFullAndStaysUnused() throws {
        let groupId = try group(maxMembers: 2)
        let code = try invite(into: groupId)
        var redeemed: Result<GroupData, GatewayError>?
        hub.redeemInvite(userId: "bob", code: code) { redeemed = $0 }
        otherNode([.joinGroup(GroupMemberRecord(groupId: groupId, userId: "carol", role: "member", createdAt: 1))])
        store.flush()
        #expect(refusal(redeemed) == .groupFull)
        #expect(try store.inner.invite(code: code)?.state == .pending)
        #expect(try activeMembers(groupId) == ["ann", "carol"])
    }
}
