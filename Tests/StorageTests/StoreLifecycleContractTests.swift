import Gateway
import Testing
@testable import Storage

/// A user's deletion and a device's revocation (`StoreWrite.deleteUser`, `.revokeDevice`), each one write, with the
/// same answers from every store: what goes, what the other users keep, and the revocation read with the user.
@Suite struct StoreLifecycleContractTests {
    static let ana = UserRecord(id: "ana", hexCode: "0000a0a0", displayName: "Ana", createdAt: 10)
    static let ben = UserRecord(id: "ben", hexCode: "0000b0b0", createdAt: 11)

    static func job(_ user: String, _ device: String) -> StoreWrite {
        .enqueuePush(
            PushJobRecord(
                id: 0, userId: user, deviceId: device,
                target: PushTarget(provider: "apns", token: "t-\(device)", kind: "alert"),
                notice: PushNotice(type: "message", genericTitle: "New message"), nextAttemptAt: 50, createdAt: 50))
    }

    static func event(_ user: String, _ text: String) -> StoreWrite {
        .appendEvent(StoredEvent(userId: user, offset: 0, type: "message", payload: Array(text.utf8), createdAt: 60))
    }

    /// Ana (two devices, a log, sessions, an approval, keys, a group she owns, a code) and Ben, who shares a contact,
    /// messages, a friend request, a pause, a block and his own group with her.
    func fill(_ s: OpenedStore) {
        #expect(
            s.write([
                .upsertUser(Self.ana), .upsertUser(Self.ben),
                .upsertDevice(
                    DeviceRecord(id: "phone", userId: "ana", clientType: "ios", deviceToken: "digest-a", createdAt: 20)),
                .upsertDevice(DeviceRecord(id: "laptop", userId: "ana", clientType: "desktop", createdAt: 21)),
                .upsertDevice(DeviceRecord(id: "phone", userId: "ben", clientType: "android", createdAt: 22)),
                .upsertContact(ContactRecord(userId: "ana", contactId: "ben", createdAt: 30)),
                .upsertContact(ContactRecord(userId: "ben", contactId: "ana", createdAt: 30)),
                .upsertPushToken(
                    PushTokenRecord(userId: "ana", deviceId: "phone", kind: "alert", token: "tok-a", updatedAt: 40)),
                .upsertPushToken(
                    PushTokenRecord(userId: "ana", deviceId: "laptop", kind: "alert", token: "tok-l", updatedAt: 40)),
                .upsertPushToken(
                    PushTokenRecord(userId: "ben", deviceId: "phone", kind: "alert", token: "tok-b", updatedAt: 40)),
                .setNotificationSettings(userId: "ana", settings: NotificationSettings()),
                Self.job("ana", "phone"), Self.job("ana", "laptop"), Self.job("ben", "phone"),
                Self.event("ana", "a1"), Self.event("ana", "a2"), Self.event("ben", "b1"),
                .insertMessage(MessageRecord(id: 1, from: "ana", to: "ben", text: "hi", sentAt: 61)),
                .insertMessage(MessageRecord(id: 2, from: "ben", to: "ana", text: "yo", sentAt: 62)),
                .setReadMark(userId: "ben", peerId: "ana", messageId: 1),
                .upsertSession(SessionRecord(id: "s-ana", userId: "ana", createdAt: 70)),
                .upsertSession(SessionRecord(id: "s-ben", userId: "ben", createdAt: 70)),
                .upsertApproval(
                    ApprovalRecord(
                        id: "apr_1", userId: "ana", sessionId: "s-ana", toolName: "t", summary: "s", createdAt: 71,
                        expiresAt: 9_999)),
                .putIdempotency(scope: "publish:ana", key: "k", response: [1], createdAt: 72),
                .putIdempotency(
                    scope: UserDeletion.approvalScopePrefix(of: "ana") + "s-ana", key: "k", response: [2], createdAt: 72
                ),
                .putIdempotency(scope: "publish:ben", key: "k", response: [3], createdAt: 72),
                .putIdempotency(scope: "publish:anabel", key: "k", response: [4], createdAt: 72),
                .upsertFriendRequest(
                    FriendRequestRecord(id: "frq_1", fromUserId: "ben", toUserId: "ana", createdAt: 80)),
                .upsertContactPause(ContactPauseRecord(userId: "ben", contactId: "ana", pausedAt: 81)),
                .upsertBlock(BlockRecord(userId: "ana", blockedId: "ben", createdAt: 82)),
                .upsertConnectCode(ConnectCodeRecord(code: "111111", userId: "ana", createdAt: 83)),
                .upsertGroup(GroupRecord(id: "g-ana", ownerId: "ana", name: "Ana's", maxMembers: 5, createdAt: 84)),
                .upsertGroupMember(GroupMemberRecord(groupId: "g-ana", userId: "ana", role: "owner", createdAt: 84)),
                .upsertGroupMember(GroupMemberRecord(groupId: "g-ana", userId: "ben", role: "member", createdAt: 85)),
                .upsertGroup(GroupRecord(id: "g-ben", ownerId: "ben", name: "Ben's", maxMembers: 5, createdAt: 86)),
                .upsertGroupMember(GroupMemberRecord(groupId: "g-ben", userId: "ben", role: "owner", createdAt: 86)),
                .upsertGroupMember(GroupMemberRecord(groupId: "g-ben", userId: "ana", role: "member", createdAt: 87)),
                .upsertInvite(
                    InviteRecord(
                        code: "ABCDEFGH", groupId: "g-ana", inviterId: "ana", recipient: "+442079460001", createdAt: 88,
                        expiresAt: 9_999)),
                .upsertUserPhone(UserPhoneRecord(userId: "ana", phone: "+442079460002", verifiedAt: 89)),
                .revokeDevice(userId: "ana", deviceId: "old-tablet", at: 5)
            ]) == [nil])
    }

    @Test(arguments: StoreFactory.all)
    func deletingAUserRemovesEverythingOfTheirsAndKeepsTheOtherSidesLog(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        #expect(s.write([.deleteUser(userId: "ana", at: 1_000)]) == [nil])

        let ana = try s.store.userEntry(id: "ana")
        var expected = UserEntry(id: "ana")
        expected.latestOffset = 2  // the head stays: offsets never restart
        expected.revocations = [RevocationRecord(userId: "ana", deviceId: nil, revokedAt: 1_000)]
        #expect(ana == expected)
        #expect(try s.store.events(userId: "ana", after: 0, limit: 10).isEmpty)
        #expect(try s.store.device(tokenDigest: "digest-a") == nil)
        #expect(try s.store.deviceOwners(deviceId: "phone") == ["ben"])
        #expect(try s.store.userId(hexCode: "0000a0a0") == nil)
        #expect(try s.store.session(id: "s-ana") == nil)
        #expect(try s.store.approval(id: "apr_1") == nil)
        #expect(try s.store.pendingApprovals(dueBy: .max, limit: 10).isEmpty)
        #expect(try s.store.messages(between: "ana", and: "ben", before: nil, limit: 10).isEmpty)
        #expect(try s.store.unreadCounts(userId: "ben").isEmpty)
        #expect(try s.store.idempotentResponse(scope: "publish:ana", key: "k") == nil)
        #expect(
            try s.store.idempotentResponse(scope: UserDeletion.approvalScopePrefix(of: "ana") + "s-ana", key: "k")
                == nil)
        #expect(try s.store.idempotentResponse(scope: "publish:ben", key: "k")?.response == [3])
        #expect(try s.store.idempotentResponse(scope: "publish:anabel", key: "k")?.response == [4])
        #expect(try s.store.duePushJobs(now: 100, limit: 10).map(\.userId) == ["ben"])
        #expect(try s.store.groupMemberIds(groupId: "g-ana").isEmpty)
        #expect(try s.store.groupMemberIds(groupId: "g-ben") == ["ben"])
        #expect(try s.store.invite(code: "ABCDEFGH") == nil)
        #expect(try s.store.connectCode(code: "111111")?.revokedAt == 1_000)  // kept revoked: its quarantine holds
        #expect(try s.store.phoneOwners(phones: ["+442079460002"], hashes: []) == PhoneOwners())

        // Ben keeps his own log (the message events delivered to him), his session and device, and nothing naming Ana.
        let ben = try s.store.userEntry(id: "ben")
        #expect(ben.user == Self.ben)
        #expect(try s.store.events(userId: "ben", after: 0, limit: 10).map(\.payload) == [Array("b1".utf8)])
        #expect(ben.contacts.isEmpty && ben.devices.map(\.id) == ["phone"] && ben.pushTokens.map(\.token) == ["tok-b"])
        #expect(ben.openSessions.map(\.id) == ["s-ben"])
        #expect(
            ben.relationships.friendRequests.isEmpty && ben.relationships.contactPauses.isEmpty
                && ben.relationships.blocks.isEmpty)
        #expect(ben.relationships.groups.map(\.id) == ["g-ben"])
        #expect(ben.relationships.groupMembers.map(\.userId) == ["ben"])
        #expect(ben.revocations.isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func revokingADeviceRemovesItsRowsAndRecordsTheRevocation(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        #expect(s.write([.revokeDevice(userId: "ana", deviceId: "phone", at: 500)]) == [nil])
        let ana = try s.store.userEntry(id: "ana")
        #expect(ana.user == Self.ana)
        #expect(ana.devices.map(\.id) == ["laptop"])
        #expect(ana.pushTokens.map(\.token) == ["tok-l"])
        #expect(
            ana.revocations == [
                RevocationRecord(userId: "ana", deviceId: "old-tablet", revokedAt: 5),
                RevocationRecord(userId: "ana", deviceId: "phone", revokedAt: 500)
            ])
        #expect(try s.store.device(tokenDigest: "digest-a") == nil)
        #expect(try s.store.deviceOwners(deviceId: "phone") == ["ben"])
        #expect(
            try s.store.duePushJobs(now: 100, limit: 10).map { "\($0.userId)/\($0.deviceId)" }.sorted() == [
                "ana/laptop", "ben/phone"
            ])
        #expect(try s.store.events(userId: "ana", after: 0, limit: 10).count == 2)

        // Revoking it again moves the revocation (a token issued in between is refused too).
        #expect(s.write([.revokeDevice(userId: "ana", deviceId: "phone", at: 800)]) == [nil])
        #expect(
            try s.store.userEntry(id: "ana").revocations.last
                == RevocationRecord(userId: "ana", deviceId: "phone", revokedAt: 800))
    }

    /// The write is atomic with its batch: a batch that fails (a message id taken, by a message the deletion leaves) deletes nothing.
    @Test(arguments: StoreFactory.all)
    func aFailedBatchDeletesNothing(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        #expect(s.write([.insertMessage(MessageRecord(id: 9, from: "ben", to: "cid", text: "", sentAt: 1))]) == [nil])
        let conflicts = s.write([
            .deleteUser(userId: "ana", at: 1_000),
            .insertMessage(MessageRecord(id: 9, from: "x", to: "y", text: "", sentAt: 1))
        ])
        #expect(conflicts.first??.isIdTaken == true)
        #expect(try s.store.userEntry(id: "ana").user == Self.ana)
        #expect(try s.store.events(userId: "ana", after: 0, limit: 10).count == 2)
    }

    @Test func aRevocationRefusesTokensIssuedBeforeItsSecond() {
        let revoked = RevocationRecord(userId: "u", deviceId: "d", revokedAt: 10_500)
        #expect(revoked.refuses(issuedAt: nil))
        #expect(revoked.refuses(issuedAt: 9))
        #expect(revoked.refuses(issuedAt: 10))  // the second of the revocation: refused too
        #expect(!revoked.refuses(issuedAt: 11))
        #expect(revoked.refuses(issuedAt: .max))  // no overflow into acceptance
        let list = [revoked, RevocationRecord(userId: "u", deviceId: nil, revokedAt: 20_000)]
        #expect(list.refusing(deviceId: "other", issuedAt: 15)?.deviceId == nil)
        #expect(list.refusing(deviceId: "other", issuedAt: 20) == nil)
        #expect([revoked].refusing(deviceId: "other", issuedAt: 1) == nil)
    }
}

extension StoreConflict {
    var isIdTaken: Bool { if case .idTaken = self { true } else { false } }
}
