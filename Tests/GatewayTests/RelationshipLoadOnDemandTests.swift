import Gateway
import GatewayTestSupport
import GatewayProtocol
import Testing

/// Relationship rows loaded on demand (docs/ARCHITECTURE.md, "Memory and load on demand"): a hub starts with none,
/// reads each user's with the user, answers codes, invites, groups by id and phone numbers from the store, forgets
/// a user's rows with the user, and follows another node's change to them through the cluster bus.
@Suite struct RelationshipLoadOnDemandTests {
    let store = InMemoryGatewayStore()
    let bus = InMemoryClusterBus()

    func hub(_ clock: ManualScheduler = ManualScheduler(), bus: InMemoryClusterBus? = nil, capacity: Int = 100_000) throws -> GatewayHub {
        var settings = GatewaySettings()
        settings.userCacheCapacity = capacity
        let hub = GatewayHub(store: store, scheduler: clock, clock: clock, settings: settings)
        hub.clusterBus = bus?.member()
        try hub.start()
        return hub
    }

    func value<T>(_ call: (@escaping (Result<T, GatewayError>) -> Void) -> Void) -> Result<T, GatewayError>? {
        var result: Result<T, GatewayError>?
        call { result = $0 }
        return result
    }

    /// Ann sent Ben a request and hands out a code; Cat owns a group Ann is in, has a phone, and paused Ann.
    func fill(_ h: GatewayHub) throws -> (code: String, invite: String) {
        for id in ["ann", "ben", "cat", "dan"] { h.upsertUser(id: id, displayName: id.capitalized) { _ in } }
        let benHex = try #require(h.user("ben")?.hexCode)
        _ = try value { h.sendFriendRequest(from: "ann", toHexCode: benHex, completion: $0) }?.get()
        let code = try #require(try value { h.connectCode(for: "ann", regenerate: false, completion: $0) }?.get().code)
        _ = try value { h.createGroup(ownerId: "cat", .init(id: "fam", name: "Family", maxMembers: 5), completion: $0) }?.get()
        _ = try value { h.addGroupMember(groupId: "fam", userId: "ann", role: nil, completion: $0) }?.get()
        let invite = try #require(try value { h.createInvite(inviterId: "cat", groupId: "fam", .init(), completion: $0) }?.get().code)
        _ = try value { h.setPhone(userId: "cat", phone: "+442079460002", completion: $0) }?.get()
        h.addContact("ann", "cat") { _ in }
        _ = try value { h.pauseContact(userId: "cat", contactId: "ann", completion: $0) }?.get()
        return (code, invite)
    }

    @Test func aHubStartsWithNoRelationshipRowsAndReadsThemWhenNeeded() throws {
        let (code, invite) = try fill(try hub())
        let h = try hub()
        #expect(h.relationshipRowCount == 0 && h.loadedUserCount == 0)
        // Ben's request comes with Ben.
        var incoming: [String] = []
        h.withUsers(["ben"], failed: { _ in }) { incoming = h.friendRequests(of: "ben").incoming.map(\.from.userId) }
        #expect(incoming == ["ann"])
        #expect(h.relationshipRowCount == 1)
        // A code whose owner nobody holds is read by code, and the owner then loaded.
        h.withUsers(["dan"], failed: { _ in }) {}
        #expect(try value { h.connect(userId: "dan", code: code, completion: $0) }?.get().userId == "ann")
        #expect(h.isLoaded("ann"))
        // The group comes whole with Ann; Cat's pause on Ann holds for Ann.
        #expect(h.groups(of: "ann").map(\.groupId) == ["fam"])
        #expect(h.groupData("fam")?.members.map(\.user.userId).sorted() == ["ann", "cat"])
        #expect(h.contactList(of: "ann").first { $0.user.userId == "cat" }?.pausedByThem == true)
        // An invite is read by code and its group by id.
        #expect(try value { h.redeemInvite(userId: "dan", code: invite, completion: $0) }?.get().members.count == 3)
        // A phone's owner is read by number.
        let found = try value { h.discover(userId: "dan", numbers: ["+442079460002"], hashes: [], completion: $0) }?.get()
        #expect(found?.map(\.status) == ["user"] && found?.first?.user?.userId == "cat")
    }

    @Test func aForgottenUsersRowsGoWithItUnlessAnotherHeldUserHoldsThem() throws {
        _ = try fill(try hub())
        let clock = ManualScheduler()
        let h = try hub(clock, capacity: 1)
        h.withUsers(["ben"], failed: { _ in }) {}
        h.withUsers(["ann"], failed: { _ in }) {}
        #expect(h.friendRequests(of: "ben").incoming.count == 1)   // shared by both while either is held
        clock.advance(by: 0)                                      // the eviction due: ben goes, ann stays
        #expect(!h.isLoaded("ben") && h.isLoaded("ann"))
        #expect(h.friendRequests(of: "ann").outgoing.count == 1)
        h.withUsers(["cat"], failed: { _ in }) {}
        clock.advance(by: 0)                                      // ann goes, cat stays
        #expect(!h.isLoaded("ann") && h.isLoaded("cat"))
        #expect(h.friendRequests(of: "ann").outgoing.isEmpty)     // nobody held holds the request any more
        // What is left is exactly what a hub holding only cat holds.
        let fresh = try hub()
        fresh.withUsers(["cat"], failed: { _ in }) {}
        #expect(h.relationshipRowCount == fresh.relationshipRowCount)
    }

    @Test func aHeldUserFollowsAnotherNodesChangeToItsRelationships() throws {
        let a = try hub(bus: bus)
        let b = try hub(bus: bus)
        for id in ["ann", "ben"] { a.upsertUser(id: id, displayName: nil) { _ in } }
        a.addContact("ann", "ben") { _ in }
        let phone = FakeClient("ben", "phone", "ios")
        b.connect(phone, resumeAfter: nil)                        // B holds ben while his phone is connected
        #expect(b.contactList(of: "ben").first?.paused == false)
        _ = try value { a.pauseContact(userId: "ann", contactId: "ben", completion: $0) }?.get()
        #expect(b.contactList(of: "ben").first?.pausedByThem == true)
        b.handle(Array(#"{"id":"m","type":"send_message","to":"ann","text":"hi"}"#.utf8), from: phone)
        #expect(phone.errorCode("m") == "contact_paused")
        let benHex = try #require(b.user("ben")?.hexCode)
        // And a request made on A is listed by B for the user it holds.
        b.withUsers(["ann"], failed: { _ in }) {}
        a.upsertUser(id: "cid", displayName: nil) { _ in }
        _ = try value { a.sendFriendRequest(from: "cid", toHexCode: benHex, completion: $0) }?.get()
        #expect(b.friendRequests(of: "ben").incoming.map(\.from.userId) == ["cid"])
    }

    @Test func aReReadOfAFormerMemberLeavesTheGroupToTheMembersHeld() throws {
        let a = try hub(bus: bus)
        let b = try hub(bus: bus)
        for id in ["ann", "ben"] { a.upsertUser(id: id, displayName: nil) { _ in } }
        _ = try value { a.createGroup(ownerId: "ben", .init(id: "fam", name: "Family", maxMembers: 5), completion: $0) }?.get()
        _ = try value { a.addGroupMember(groupId: "fam", userId: "ann", role: nil, completion: $0) }?.get()
        _ = try value { a.removeGroupMember(groupId: "fam", userId: "ann", actor: "ann", completion: $0) }?.get()
        let phone = FakeClient("ben", "phone", "ios")
        b.connect(phone, resumeAfter: nil)                        // B holds ben (in the group) and ann (who left),
        b.connect(FakeClient("ann", "desk", "desktop"), resumeAfter: nil)   // both in use
        #expect(b.groups(of: "ben").map(\.groupId) == ["fam"])
        a.upsertUser(id: "ann", displayName: "Ann") { _ in }      // a change to ann alone: B re-reads her
        #expect(b.user("ann")?.displayName == "Ann")
        #expect(b.groups(of: "ben").map(\.groupId) == ["fam"])
        b.handle(Array(#"{"id":"g","type":"group_send_message","groupId":"fam","text":"hi"}"#.utf8), from: phone)
        #expect(phone.reply("g")?["ok"] as? Bool == true, "\(phone.frames)")
    }
}
