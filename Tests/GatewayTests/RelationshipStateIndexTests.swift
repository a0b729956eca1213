@testable import Gateway
import Testing

/// `RelationshipState`'s per-user indexes (docs/ARCHITECTURE.md, "Memory and load on demand"): after every change —
/// rows added from a read, changed by the flows, dropped with a user — each index equals the one rebuilt from the
/// rows, and dropping a user keeps exactly the rows another loaded user still holds.
@Suite struct RelationshipStateIndexTests {
    /// ann and ben share a friend request, a pause each way and a group; ann also has a request with cat, a code and
    /// a phone; ben a group of his own that ann left.
    func entries() -> [String: UserRelationships] {
        let annBen = FriendRequestRecord(id: "fr1", fromUserId: "ann", toUserId: "ben", createdAt: 1)
        let catAnn = FriendRequestRecord(id: "fr2", fromUserId: "cat", toUserId: "ann", createdAt: 2)
        let pauses = [ContactPauseRecord(userId: "ann", contactId: "ben", pausedAt: 3),
                      ContactPauseRecord(userId: "ben", contactId: "ann", pausedAt: 4)]
        let both = GroupRecord(id: "g1", ownerId: "ann", name: "Both", kind: "default", maxMembers: 10, invitePolicy: "owner",
                               roleLimits: [:], createdAt: 5)
        let bens = GroupRecord(id: "g2", ownerId: "ben", name: "Ben's", kind: "default", maxMembers: 10, invitePolicy: "owner",
                               roleLimits: [:], createdAt: 6)
        let g1 = [GroupMemberRecord(groupId: "g1", userId: "ann", role: "owner", createdAt: 5),
                  GroupMemberRecord(groupId: "g1", userId: "ben", role: "member", createdAt: 5)]
        let g2 = [GroupMemberRecord(groupId: "g2", userId: "ben", role: "owner", createdAt: 6),
                  GroupMemberRecord(groupId: "g2", userId: "ann", role: "member", active: false, createdAt: 6)]
        var ann = UserRelationships()
        ann.friendRequests = [annBen, catAnn]
        ann.contactPauses = pauses
        ann.connectCode = ConnectCodeRecord(code: "123456", userId: "ann", createdAt: 7)
        ann.phone = UserPhoneRecord(userId: "ann", phone: "+15550100", verifiedAt: 7)
        ann.groups = [both]
        ann.groupMembers = g1
        var ben = UserRelationships()
        ben.friendRequests = [annBen]
        ben.contactPauses = pauses
        ben.groups = [both, bens]
        ben.groupMembers = g1 + g2
        return ["ann": ann, "ben": ben]
    }

    /// Every index rebuilt from the rows equals the one kept.
    func expectConsistent(_ s: RelationshipState, sourceLocation: SourceLocation = #_sourceLocation) {
        var requests: [String: Set<String>] = [:]
        for r in s.friendRequests.values {
            requests[r.fromUserId, default: []].insert(r.id)
            requests[r.toUserId, default: []].insert(r.id)
        }
        var pausedBy: [String: Set<String>] = [:]
        for (user, theirs) in s.pauses.rows {
            #expect(!theirs.isEmpty, "empty pause map left for \(user)", sourceLocation: sourceLocation)
            for contact in theirs.keys { pausedBy[contact, default: []].insert(user) }
        }
        var codes: [String: Set<String>] = [:]
        for c in s.connectCodes.values { codes[c.userId, default: []].insert(c.code) }
        var groups: [String: Set<String>] = [:]
        for (groupId, rows) in s.members.rows {
            #expect(!rows.isEmpty, "empty member map left for \(groupId)", sourceLocation: sourceLocation)
            for user in rows.keys { groups[user, default: []].insert(groupId) }
        }
        #expect(s.requestsByUser == requests, sourceLocation: sourceLocation)
        #expect(s.pauses.reverse == pausedBy, sourceLocation: sourceLocation)
        #expect(s.codesByUser == codes, sourceLocation: sourceLocation)
        #expect(s.members.reverse == groups, sourceLocation: sourceLocation)
        for (key, id) in s.pendingRequests {
            #expect(s.friendRequests[id].map { RelationshipState.pairKey($0.fromUserId, $0.toUserId) } == key, sourceLocation: sourceLocation)
        }
    }

    @Test func readingTwoUsersIndexesEachRowUnderEveryUserItConcerns() {
        var loaded: Set<String> = []
        var s = RelationshipState()
        for (id, entry) in entries().sorted(by: { $0.key < $1.key }) {
            s.add(entry, of: id, replace: false) { loaded.contains($0) }
            loaded.insert(id)
            expectConsistent(s)
        }
        #expect(Set(s.friendRequests(of: "ann").map(\.id)) == ["fr1", "fr2"])
        #expect(s.friendRequests(of: "ben").map(\.id) == ["fr1"])
        #expect(s.friendRequests(of: "cat").map(\.id) == ["fr2"])     // cat is not loaded, the row is ann's
        #expect(s.activeGroups(of: "ann").map(\.id) == ["g1"])        // ann left g2
        #expect(Set(s.activeGroups(of: "ben").map(\.id)) == ["g1", "g2"])
        #expect(s.pauses.reverse["ben"] == ["ann"] && s.pauses.reverse["ann"] == ["ben"])
    }

    /// Forgetting ann while ben stays loaded keeps what ben holds (their request, both pauses, both groups) and
    /// drops what only ann held (cat's request, her code and phone); forgetting ben then leaves nothing.
    @Test func forgettingOneUserKeepsTheRowsAnotherLoadedUserHolds() {
        var loaded: Set<String> = ["ann", "ben"]
        var s = RelationshipState()
        for (id, entry) in entries() { s.add(entry, of: id, replace: false) { _ in false } }
        loaded.remove("ann")
        s.drop(["ann"], shared: false) { loaded.contains($0) }
        expectConsistent(s)
        #expect(Set(s.friendRequests.keys) == ["fr1"])
        #expect(s.isPaused("ann", "ben") && s.pauses["ann"]?["ben"] != nil && s.pauses["ben"]?["ann"] != nil)
        #expect(Set(s.groups.keys) == ["g1", "g2"] && s.members["g1"]?.count == 2 && s.members["g2"]?.count == 2)
        #expect(s.connectCodes.isEmpty && s.currentCode["ann"] == nil && s.phoneByUser["ann"] == nil)
        #expect(s.friendRequests(of: "ann").map(\.id) == ["fr1"])    // still indexed under ann, for ben's sake

        loaded.remove("ben")
        s.drop(["ben"], shared: false) { loaded.contains($0) }
        expectConsistent(s)
        #expect(s.friendRequests.isEmpty && s.pauses.isEmpty && s.groups.isEmpty && s.members.isEmpty)
        #expect(s.requestsByUser.isEmpty && s.pauses.reverse.isEmpty && s.codesByUser.isEmpty && s.members.reverse.isEmpty)
    }

    /// A re-read (`shared`) drops the user's rows shared with loaded users too, and the re-read brings them back.
    @Test func aReReadReplacesTheSharedRowsAndTheIndexesFollow() {
        let loaded: Set<String> = ["ann", "ben"]
        var s = RelationshipState()
        for (id, entry) in entries() { s.add(entry, of: id, replace: false) { _ in false } }
        s.drop(["ann"], shared: true) { loaded.contains($0) }
        expectConsistent(s)
        #expect(s.friendRequests.isEmpty && s.pauses.isEmpty)
        #expect(Set(s.groups.keys) == ["g2"])      // ann left g2: it stays while ben holds it
        var changed = entries()["ann"]!
        changed.friendRequests[0].state = .accepted
        changed.contactPauses.removeFirst()
        s.add(changed, of: "ann", replace: true) { loaded.contains($0) }
        expectConsistent(s)
        #expect(Array(s.pendingRequests.values) == ["fr2"] && s.friendRequests["fr1"]?.state == .accepted)
        #expect(s.pauses["ann"] == nil && s.pauses["ben"]?["ann"] != nil)
    }

    /// The flows' own changes keep the indexes: a request answered and withdrawn, pauses set and cleared, a code
    /// replaced and one taken by another user, memberships changed and taken back.
    @Test func theFlowsChangesKeepTheIndexes() {
        var s = RelationshipState()
        var request = FriendRequestRecord(id: "fr", fromUserId: "ann", toUserId: "ben", createdAt: 1)
        s.put(request)
        request.state = .rejected
        s.put(request)
        expectConsistent(s)
        #expect(s.pendingRequests.isEmpty)
        s.removeFriendRequest("fr")
        expectConsistent(s)
        #expect(s.requestsByUser.isEmpty)

        s.setPause(ContactPauseRecord(userId: "ann", contactId: "ben", pausedAt: 1), by: "ann", on: "ben")
        s.setPause(ContactPauseRecord(userId: "cat", contactId: "ben", pausedAt: 1), by: "cat", on: "ben")
        #expect(s.pauses.reverse["ben"] == ["ann", "cat"])
        s.setPause(nil, by: "ann", on: "ben")
        s.setPause(nil, by: "ann", on: "ben")                  // twice: nothing to remove
        expectConsistent(s)
        #expect(s.pauses.reverse["ben"] == ["cat"] && s.pauses["ann"] == nil)

        s.put(ConnectCodeRecord(code: "111111", userId: "ann", createdAt: 1))
        s.put(ConnectCodeRecord(code: "111111", userId: "ann", createdAt: 1, revokedAt: 2))
        s.put(ConnectCodeRecord(code: "222222", userId: "ann", createdAt: 2))
        s.put(ConnectCodeRecord(code: "222222", userId: "dan", createdAt: 2))   // another node gave it to dan first
        expectConsistent(s)
        #expect(s.codesByUser["ann"] == ["111111"] && s.codesByUser["dan"] == ["222222"])
        #expect(s.currentCode["ann"] == nil && s.currentCode["dan"] == "222222")

        s.put(GroupRecord(id: "g", ownerId: "ann", name: "G", kind: "default", maxMembers: 5, invitePolicy: "owner", roleLimits: [:], createdAt: 1))
        s.setMember(GroupMemberRecord(groupId: "g", userId: "ann", role: "owner", createdAt: 1), of: "g", user: "ann")
        s.setMember(GroupMemberRecord(groupId: "g", userId: "ben", role: "member", createdAt: 1), of: "g", user: "ben")
        s.setMember(nil, of: "g", user: "ben")                 // a join taken back
        expectConsistent(s)
        #expect(s.members.reverse["ben"] == nil && s.activeGroups(of: "ann").map(\.id) == ["g"])

        s.drop(["ann", "ben", "cat", "dan"], shared: false) { _ in false }
        expectConsistent(s)
        #expect(s.requestsByUser.isEmpty && s.pauses.reverse.isEmpty && s.codesByUser.isEmpty && s.members.reverse.isEmpty)
        #expect(s.friendRequests.isEmpty && s.pauses.isEmpty && s.connectCodes.isEmpty && s.groups.isEmpty && s.members.isEmpty)
    }
}
