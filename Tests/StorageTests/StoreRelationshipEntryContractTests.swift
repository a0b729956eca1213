import Gateway
import Testing
@testable import Storage

/// Each user's relationship rows read with its entry (`UserEntry.relationships`), the look-ups not keyed by user
/// (connect code, invite, latest invite to a recipient, a group's members, phone owners by number and hash), and a
/// start state without relationship rows, with the same answers from every store.
@Suite struct StoreRelationshipEntryContractTests {
    static let request = FriendRequestRecord(id: "frq_1", fromUserId: "ana", toUserId: "ben", createdAt: 10)
    static let other = FriendRequestRecord(id: "frq_2", fromUserId: "cid", toUserId: "dan", createdAt: 11)
    static let pause = ContactPauseRecord(userId: "ben", contactId: "ana", pausedAt: 12)
    static let block = BlockRecord(userId: "ana", blockedId: "dan", createdAt: 12)
    static let blockOfAna = BlockRecord(userId: "ben", blockedId: "ana", createdAt: 13)
    static let oldCode = ConnectCodeRecord(code: "111111", userId: "ana", createdAt: 13, revokedAt: 14)
    static let code = ConnectCodeRecord(code: "222222", userId: "ana", createdAt: 14)
    static let group = GroupRecord(id: "g1", ownerId: "ben", name: "Family", maxMembers: 5, createdAt: 15)
    static let owner = GroupMemberRecord(groupId: "g1", userId: "ben", role: "owner", createdAt: 15)
    static let left = GroupMemberRecord(groupId: "g1", userId: "cid", role: "member", active: false, createdAt: 16)
    static let invite = InviteRecord(code: "ABCDEFGH", groupId: "g1", inviterId: "ben", recipient: "+442079460001", createdAt: 17,
                                     expiresAt: 1_000)
    static let later = InviteRecord(code: "JKMNPQRS", groupId: "g1", inviterId: "ben", recipient: "+442079460001", createdAt: 18,
                                    expiresAt: 1_000)
    static let phone = UserPhoneRecord(userId: "ben", phone: "+442079460001", verifiedAt: 19)

    func fill(_ s: OpenedStore) {
        #expect(s.write([
            .upsertFriendRequest(Self.request), .upsertFriendRequest(Self.other), .upsertContactPause(Self.pause),
            .upsertBlock(Self.block), .upsertBlock(Self.blockOfAna), .upsertBlock(BlockRecord(userId: "cid", blockedId: "dan", createdAt: 14)),
            .deleteBlock(userId: "cid", blockedId: "dan"), .upsertBlock(BlockRecord(userId: "ana", blockedId: "dan", createdAt: 99)),
            .upsertConnectCode(Self.oldCode), .upsertConnectCode(Self.code), .upsertGroup(Self.group),
            .upsertGroupMember(Self.owner), .upsertGroupMember(Self.left), .upsertInvite(Self.invite), .upsertInvite(Self.later),
            .upsertUserPhone(Self.phone),
        ]) == [nil])
    }

    @Test(arguments: StoreFactory.all)
    func aUsersEntryHoldsTheRowsNamingIt(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        let ana = try s.store.userEntry(id: "ana").relationships
        #expect(ana.friendRequests == [Self.request])
        #expect(ana.contactPauses == [Self.pause])
        // Blocks by and of the user, in first-insert order; blocking again keeps the first block's time.
        #expect(ana.blocks == [Self.block, Self.blockOfAna])
        #expect(try s.store.userEntry(id: "dan").relationships.blocks == [Self.block])
        #expect(try s.store.userEntry(id: "cid").relationships.blocks.isEmpty)
        #expect(ana.connectCode == Self.code)
        #expect(ana.groups.isEmpty && ana.groupMembers.isEmpty && ana.phone == nil)

        let ben = try s.store.userEntry(id: "ben").relationships
        #expect(ben.friendRequests == [Self.request])
        #expect(ben.contactPauses == [Self.pause])
        #expect(ben.connectCode == nil)
        #expect(ben.groups == [Self.group])
        #expect(ben.groupMembers == [Self.owner, Self.left])
        #expect(ben.phone == Self.phone)
        // A member who left holds the group no longer.
        #expect(try s.store.userEntry(id: "cid").relationships.groups.isEmpty)
        #expect(try s.store.userEntry(id: "nobody") == UserEntry(id: "nobody"))
    }

    @Test(arguments: StoreFactory.all)
    func lookUpsByCodeGroupAndPhone(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        #expect(try s.store.connectCode(code: "111111") == Self.oldCode)
        #expect(try s.store.connectCode(code: "333333") == nil)
        #expect(try s.store.invite(code: "ABCDEFGH") == Self.invite)
        #expect(try s.store.invite(code: "ZZZZZZZZ") == nil)
        #expect(try s.store.latestInvite(groupId: "g1", recipient: "+442079460001") == Self.later)
        #expect(try s.store.latestInvite(groupId: "g1", recipient: "a@b.c") == nil)
        #expect(try s.store.groupMemberIds(groupId: "g1") == ["ben"])
        #expect(try s.store.groupMemberIds(groupId: "g2").isEmpty)
        let hash = PhoneNumber.hash(e164: "+442079460001")
        let owners = try s.store.phoneOwners(phones: ["+442079460001", "+442079460009"], hashes: [hash, PhoneNumber.hash(e164: "+1")])
        #expect(owners == PhoneOwners(byPhone: ["+442079460001": "ben"], byHash: [hash: "ben"]))
        // A number that moves takes its hash along.
        #expect(s.write([.deleteUserPhone(userId: "ben"), .upsertUserPhone(UserPhoneRecord(userId: "ana", phone: "+442079460001", verifiedAt: 20))]) == [nil])
        #expect(try s.store.phoneOwners(phones: [], hashes: [hash]).byHash == [hash: "ana"])
    }

    @Test(arguments: StoreFactory.all)
    func theWholeSnapshotHasTheRelationshipRows(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        let whole = try s.store.loadSnapshot()
        #expect(whole.friendRequests.count == 2 && whole.invites.count == 2 && whole.userPhones == [Self.phone])
    }
}

/// Migration 10 hashes the phones stored before it (SQLite and PostgreSQL), so discovery by hash finds them.
@Suite struct PhoneHashMigrationTests {
    @Test func phonesOfAVersion8FileAreFoundByTheirHash() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(try databaseAt(version: 8, in: directory, rows: """
            INSERT INTO user_phones (user_id, phone, verified_at) VALUES ('u1', '+442079460001', 5);
            """))
        defer { store.close() }
        let hash = PhoneNumber.hash(e164: "+442079460001")
        #expect(try store.phoneOwners(phones: ["+442079460001"], hashes: [hash]) == PhoneOwners(byPhone: ["+442079460001": "u1"], byHash: [hash: "u1"]))
    }

    @Test func phonesOfAVersion8PostgresDatabaseAreFoundByTheirHash() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let db = try PostgresDatabase(options: PostgresStoreOptions(url: url))
        try db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version (version) VALUES (8)")
        for migration in PostgresSchema.migrations where migration.version <= 8 { try db.execute(migration.sql) }
        try db.execute("INSERT INTO user_phones (user_id, phone, verified_at) VALUES ('u1', '+442079460001', 5)")
        db.close()

        let store = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { store.close() }
        let hash = PhoneNumber.hash(e164: "+442079460001")
        #expect(try store.phoneOwners(phones: [], hashes: [hash]) == PhoneOwners(byHash: [hash: "u1"]))
    }
}
