import Gateway
import GatewayProtocol
import Testing

/// Invites (expiry, one-time use, permission, size, 24-hour rule, reactivation) and contact discovery.
@Suite struct InviteAndDiscoveryTests {
    func family(_ f: HubFixture, policy: String = "members", max: Int = 3) throws -> String {
        for id in ["olga", "pete", "quin", "rosa"] { f.hub.upsertUser(id: id, displayName: nil) { _ in } }
        var group: GroupData?
        f.hub.createGroup(ownerId: "olga", .init(name: "Family", maxMembers: max, invitePolicy: policy)) { group = try? $0.get() }
        return try #require(group?.groupId)
    }

    func invite(_ f: HubFixture, by: String, _ groupId: String, _ spec: GatewayHub.InviteSpec = .init()) -> Result<InviteData, GatewayError> {
        var result: Result<InviteData, GatewayError>!
        f.hub.createInvite(inviterId: by, groupId: groupId, spec) { result = $0 }
        return result
    }

    func redeem(_ f: HubFixture, _ userId: String, _ code: String) -> Result<GroupData, GatewayError> {
        var result: Result<GroupData, GatewayError>!
        f.hub.redeemInvite(userId: userId, code: code) { result = $0 }
        return result
    }

    @Test func anInviteIsUsedOnceAndDeliveredThroughThePortAfterItIsStored() throws {
        let f = try HubFixture()
        let deliverer = RecordingInviteDeliverer()
        f.hub.inviteDeliverer = deliverer
        let groupId = try family(f)
        f.hub.upsertUser(id: "olga", displayName: "Olga") { _ in }
        let olga = f.connect("olga", "o1")
        f.command(olga, #"{"id":"1","type":"invite_create","groupId":"\#(groupId)","phone":"+49 (151) 1234-5678"}"#)
        let created = try #require(olga.reply("1")?["result"] as? [String: Any])
        let code = try #require(created["code"] as? String)
        #expect(created["recipient"] as? String == "+4915112345678")
        #expect(created["expiresAt"] as? Int64 == f.scheduler.now() + 168 * 3_600_000)
        #expect(olga.events("invite_created").count == 1)
        let delivery = try #require(deliverer.deliveries.first)
        #expect(delivery.channel == "sms" && delivery.to == "+4915112345678" && delivery.code == code)
        #expect(delivery.inviterName == "Olga" && delivery.groupName == "Family")

        let pete = f.connect("pete", "p1")
        f.command(pete, #"{"id":"2","type":"invite_redeem","code":"\#(code.lowercased())"}"#)
        #expect(((pete.reply("2")?["result"] as? [String: Any])?["members"] as? [Any])?.count == 2)
        #expect(olga.events("group_member_joined").count == 1 && pete.events("group_member_joined").count == 1)
        #expect(redeem(f, "quin", code).failure?.code == .inviteUsed)
        #expect(redeem(f, "quin", "ZZZZZZZZ").failure?.code == .inviteNotFound)
        // A shareable code (no recipient) is not delivered anywhere.
        _ = invite(f, by: "olga", groupId)
        #expect(deliverer.deliveries.count == 1)
    }

    @Test func expiryPermissionSizeAndTheTwentyFourHourRule() throws {
        let f = try HubFixture()
        let groupId = try family(f, policy: "owner", max: 2)
        #expect(invite(f, by: "olga", groupId, .init(expiresInHours: 0)).failure?.code == .invalidField)
        let short = try invite(f, by: "olga", groupId, .init(expiresInHours: 72)).get()
        f.scheduler.advance(by: 72 * 3_600_000)
        #expect(redeem(f, "pete", short.code).failure?.code == .inviteExpired)
        #expect(invite(f, by: "pete", groupId).failure?.code == .notAMember)
        #expect(invite(f, by: "olga", groupId, .init(phone: "0151 1234567")).failure?.code == .phoneInvalid)
        #expect(invite(f, by: "olga", groupId, .init(phone: "+4915112345678", email: "a@b.c")).failure?.code == .invalidField)
        #expect(invite(f, by: "olga", "grp_none").failure?.code == .groupNotFound)
        let first = try invite(f, by: "olga", groupId, .init(email: "Pete@Example.com")).get()
        #expect(first.recipient == "pete@example.com")
        f.scheduler.advance(by: 23 * 3_600_000)
        #expect(invite(f, by: "olga", groupId, .init(email: "pete@example.com")).failure?.code == .rateLimited)
        f.scheduler.advance(by: 3_600_000)
        let again = try invite(f, by: "olga", groupId, .init(email: "pete@example.com")).get()
        _ = try redeem(f, "pete", first.code).get()
        #expect(redeem(f, "pete", again.code).failure?.code == .alreadyMember)
        // Owner-only policy: a member may not invite.
        #expect(invite(f, by: "pete", groupId).failure?.code == .forbidden)
        // Full (2 members): no new invites, and an outstanding one cannot be redeemed.
        #expect(invite(f, by: "olga", groupId).failure?.code == .groupFull)
        #expect(redeem(f, "quin", again.code).failure?.code == .groupFull)
        // The failed redeem left the invite usable.
        #expect(f.hub.groupData(groupId)?.members.count == 2)
    }

    @Test func redeemingAsAFormerMemberReactivatesKeepingTheJoinTime() throws {
        let f = try HubFixture()
        let groupId = try family(f)
        let first = try invite(f, by: "olga", groupId).get()
        let joinedAt = try redeem(f, "pete", first.code).get().members.first { $0.user.userId == "pete" }?.joinedAt
        f.hub.removeGroupMember(groupId: groupId, userId: "pete", actor: "olga") { _ in }
        #expect(f.hub.groupData(groupId)?.members.count == 1)
        f.scheduler.advance(by: 10_000)
        let second = try invite(f, by: "olga", groupId).get()
        let group = try redeem(f, "pete", second.code).get()
        #expect(group.members.first { $0.user.userId == "pete" }?.joinedAt == joinedAt)
        #expect(try f.store.loadSnapshot().groupMembers.filter { $0.userId == "pete" }.map(\.createdAt) == [joinedAt!])
    }

    @Test func phoneNumbersNormaliseToE164() {
        #expect(PhoneNumber.normalise("+49 151 1234-5678") == "+4915112345678")
        #expect(PhoneNumber.normalise("0049 (151) 12345678") == "+4915112345678")
        #expect(PhoneNumber.normalise("+1.415.555.0100") == "+14155550100")
        #expect(PhoneNumber.normalise("0151 12345678") == nil)          // national: no country guessing
        #expect(PhoneNumber.normalise("+123456") == nil)                // too short
        #expect(PhoneNumber.normalise("+1234567890123456") == nil)      // 16 digits
        #expect(PhoneNumber.normalise("+49 151 x2345678") == nil)
        #expect(PhoneNumber.normalise("+49+15112345678") == nil)
        #expect(PhoneNumber.normalise("+0151123456") == nil)
        // FIPS 180-4 test vector ("abc"), then the hash discovery compares.
        #expect(PhoneNumber.hash(e164: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func discoveryMarksUsersContactsAndInvitesAndIsRateLimited() throws {
        var settings = GatewaySettings()
        settings.relationships.discoveryMaxEntriesPerWindow = 6
        settings.relationships.discoveryMaxEntriesPerRequest = 5
        let f = try HubFixture(settings: settings)
        f.contacts("alice", "bob")
        f.hub.upsertUser(id: "carol", displayName: "Carol") { _ in }
        var phones: [String?] = []
        f.hub.setPhone(userId: "bob", phone: "+44 20 7946 0001") { phones.append(try? $0.get()) }
        f.hub.setPhone(userId: "carol", phone: "0044 20 7946 0002") { phones.append(try? $0.get()) }
        f.hub.setPhone(userId: "alice", phone: "12345") { phones.append((try? $0.get()) ?? "invalid") }
        #expect(phones == ["+442079460001", "+442079460002", "invalid"])
        func discover(_ numbers: [String], _ hashes: [String] = []) -> Result<[DiscoveryEntry], GatewayError> {
            var result: Result<[DiscoveryEntry], GatewayError>?
            f.hub.discover(userId: "alice", numbers: numbers, hashes: hashes) { result = $0 }
            return result!
        }
        let entries = try discover(["+44 20 7946 0001", "+442079460003", "bogus"], [PhoneNumber.hash(e164: "+442079460002").uppercased()]).get()
        #expect(entries.map(\.status) == ["contact", "invite", "invalid", "user"])
        #expect(entries[3].user?.name == "Carol")
        #expect(entries[1].e164 == "+442079460003")
        #expect(throws: GatewayError.self) { try discover(Array(repeating: "+442079460001", count: 6)).get() }
        // 4 used of 6: three more are refused, two pass.
        #expect((try? discover(["+442079460001", "+442079460001", "+442079460001"]).get()) == nil)
        #expect((try? discover(["+442079460001", "+442079460001"]).get())?.count == 2)
        f.scheduler.advance(by: 86_400_000)
        #expect((try? discover(["+442079460001"]).get())?.count == 1)
        // A number moves to the user who verified it last.
        f.hub.setPhone(userId: "alice", phone: "+442079460002") { _ in }
        #expect(f.hub.phone(of: "carol") == nil)
        let c = f.connect("bob", "b1")
        f.command(c, #"{"id":"d","type":"discover","hashes":["\#(PhoneNumber.hash(e164: "+442079460002"))"]}"#)
        let found = ((c.reply("d")?["result"] as? [String: Any])?["entries"] as? [[String: Any]])?.first
        #expect(found?["status"] as? String == "contact")
    }
}
