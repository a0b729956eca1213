import Gateway
import Testing
@testable import Storage

/// The uniqueness rules of the relationship records hold in the store itself (SQLite constraints, and the same
/// rules in the in-memory reference): a batch that breaks one fails as a whole, whatever the hub does.
@Suite struct RelationshipConstraintTests {
    /// Runs `body` against a fresh store of each kind (in-memory, SQLite, PostgreSQL).
    func bothStores(_ body: (any GatewayStore, String) throws -> Void) throws {
        for factory in StoreFactory.all {
            let opened = try factory.open()
            try body(opened.store, factory.name)
        }
    }

    @Test func aSecondPendingRequestForTheSamePairFailsItsWholeBatch() throws {
        try bothStores { store, name in
            let pending = FriendRequestRecord(id: "fr1", fromUserId: "a", toUserId: "b", createdAt: 1)
            let errors = commit(store, [
                [.upsertFriendRequest(pending)],
                [.upsertUser(UserRecord(id: "x", hexCode: "0000000x", createdAt: 2)),
                 .upsertFriendRequest(FriendRequestRecord(id: "fr2", fromUserId: "a", toUserId: "b", createdAt: 2))],
                // The other direction is a different pair.
                [.upsertFriendRequest(FriendRequestRecord(id: "fr3", fromUserId: "b", toUserId: "a", createdAt: 3))],
            ])
            #expect(errors.map { $0 == nil } == [true, false, true], "\(name)")
            let snapshot = try store.loadSnapshot()
            #expect(snapshot.friendRequests.map(\.id) == ["fr1", "fr3"], "\(name)")
            #expect(snapshot.users.isEmpty, "\(name): the failed batch left nothing behind")
            // Once resolved, the pair may have a pending request again.
            var accepted = pending
            accepted.state = .accepted
            let later = commit(store, [[.upsertFriendRequest(accepted),
                                        .upsertFriendRequest(FriendRequestRecord(id: "fr4", fromUserId: "a", toUserId: "b", createdAt: 4))]])
            #expect(later == [nil], "\(name)")
        }
    }

    @Test func connectCodesAndPhonesBelongToOneUser() throws {
        try bothStores { store, name in
            let errors = commit(store, [
                [.upsertConnectCode(ConnectCodeRecord(code: "111111", userId: "a", createdAt: 1))],
                [.upsertConnectCode(ConnectCodeRecord(code: "111111", userId: "b", createdAt: 2))],       // another user's code
                [.upsertConnectCode(ConnectCodeRecord(code: "222222", userId: "a", createdAt: 3))],       // a second current code
                [.upsertConnectCode(ConnectCodeRecord(code: "111111", userId: "a", createdAt: 1, revokedAt: 4)),
                 .upsertConnectCode(ConnectCodeRecord(code: "222222", userId: "a", createdAt: 4))],       // replace: fine
                [.upsertUserPhone(UserPhoneRecord(userId: "a", phone: "+4915112345678", verifiedAt: 5))],
                [.upsertUserPhone(UserPhoneRecord(userId: "b", phone: "+4915112345678", verifiedAt: 6))],
            ])
            #expect(errors.map { $0 == nil } == [true, false, false, true, true, false], "\(name)")
            let snapshot = try store.loadSnapshot()
            #expect(snapshot.connectCodes.map(\.userId) == ["a", "a"], "\(name)")
            #expect(snapshot.userPhones.map(\.userId) == ["a"], "\(name)")
        }
    }

    @Test func concurrentConnectionWritesLeaveOneContactKeepingTheFirstCreationTime() throws {
        try bothStores { store, name in
            let batches: [[StoreWrite]] = (0..<8).map { i in
                [.upsertContact(ContactRecord(userId: "a", contactId: "b", createdAt: 100 + Int64(i))),
                 .upsertContact(ContactRecord(userId: "b", contactId: "a", createdAt: 100 + Int64(i)))]
            }
            #expect(commit(store, batches).allSatisfy { $0 == nil }, "\(name)")
            let contacts = try store.loadSnapshot().contacts
            #expect(contacts.map(\.createdAt) == [100, 100], "\(name)")
        }
    }

    @Test func roleLimitsRoundTrip() {
        let limits = ["parent": 2, "child": 10, "x-y_z": 0]
        #expect(RoleLimits.decode(RoleLimits.encode(limits)) == limits)
        #expect(RoleLimits.decode("") == [:])
    }
}
