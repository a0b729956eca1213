import Gateway
import Testing
@testable import Storage

/// The per-user reads the hub loads users with on demand (`userEntry` with the user's open sessions, the look-ups by
/// hex code, device secret and device id, and the pending approvals read at start), with the same answers from every
/// store.
@Suite struct StoreUserEntryContractTests {
    static let ana = UserRecord(id: "ana", hexCode: "0000a0a0", displayName: "Ana", createdAt: 10)
    static let ben = UserRecord(id: "ben", hexCode: "0000b0b0", createdAt: 11)

    static func event(_ user: String, _ offset: Int64, at time: Int64 = 100) -> StoredEvent {
        StoredEvent(userId: user, offset: offset, type: "custom", payload: Array("{}".utf8), createdAt: time)
    }

    /// Ana with two devices (one standalone), a contact, a push token, settings and a log of 3; Ben with a device of
    /// the same id, a contact back and nothing else.
    func fill(_ s: OpenedStore) {
        var settings = NotificationSettings()
        settings.showDetails = true
        #expect(s.write([
            .upsertUser(Self.ana), .upsertUser(Self.ben),
            .upsertDevice(DeviceRecord(id: "phone", userId: "ana", clientType: "ios", createdAt: 20)),
            .upsertDevice(DeviceRecord(id: "laptop", userId: "ana", clientType: "desktop", deviceToken: "digest-1", createdAt: 21)),
            .upsertDevice(DeviceRecord(id: "phone", userId: "ben", clientType: "android", createdAt: 22)),
            .upsertContact(ContactRecord(userId: "ana", contactId: "ben", createdAt: 30)),
            .upsertContact(ContactRecord(userId: "ben", contactId: "ana", createdAt: 30)),
            .upsertPushToken(PushTokenRecord(userId: "ana", deviceId: "phone", kind: "alert", token: "tok-a", updatedAt: 40)),
            .setNotificationSettings(userId: "ana", settings: settings),
            .appendEvent(Self.event("ana", 1)), .appendEvent(Self.event("ana", 2)), .appendEvent(Self.event("ana", 3)),
        ]) == [nil])
    }

    @Test(arguments: StoreFactory.all)
    func aUsersEntryHoldsItsOwnRecordsOnly(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        let ana = try s.store.userEntry(id: "ana")
        #expect(ana.user == Self.ana)
        #expect(ana.devices.map(\.id).sorted() == ["laptop", "phone"])
        #expect(ana.devices.allSatisfy { $0.userId == "ana" })
        #expect(ana.contacts == [ContactRecord(userId: "ana", contactId: "ben", createdAt: 30)])
        #expect(ana.pushTokens.map(\.token) == ["tok-a"])
        #expect(ana.notificationSettings?.showDetails == true)
        #expect(ana.latestOffset == 3)

        let ben = try s.store.userEntry(id: "ben")
        #expect(ben.user == Self.ben)
        #expect(ben.devices.map(\.clientType) == ["android"])
        #expect(ben.pushTokens.isEmpty && ben.notificationSettings == nil && ben.latestOffset == 0)
        #expect(try s.store.userEntries(ids: ["ben", "nobody", "ana"]).map(\.id) == ["ben", "nobody", "ana"])
    }

    @Test(arguments: StoreFactory.all)
    func anUnknownUserHasAnEmptyEntry(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        #expect(try s.store.userEntry(id: "nobody") == UserEntry(id: "nobody"))
    }

    @Test(arguments: StoreFactory.all)
    func theLatestOffsetSurvivesPruningTheWholeLog(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        #expect(try s.store.pruneEvents(before: 1_000, keepLatest: 0) == 3)
        #expect(try s.store.userEntry(id: "ana").latestOffset == 3)
    }

    @Test(arguments: StoreFactory.all)
    func lookUpsByHexCodeDeviceSecretAndDeviceId(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        #expect(try s.store.userId(hexCode: "0000b0b0") == "ben")
        #expect(try s.store.userId(hexCode: "ffffffff") == nil)
        #expect(try s.store.device(tokenDigest: "digest-1")?.key == DeviceKey(userId: "ana", deviceId: "laptop"))
        #expect(try s.store.device(tokenDigest: "digest-2") == nil)
        #expect(try s.store.deviceOwners(deviceId: "phone").sorted() == ["ana", "ben"])
        #expect(try s.store.deviceOwners(deviceId: "laptop") == ["ana"])
        #expect(try s.store.deviceOwners(deviceId: "tablet").isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func aUsersEntryHoldsItsOpenSessionsOnly(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        let later = SessionRecord(id: "s-later", userId: "ana", title: "b", createdAt: 60)
        let first = SessionRecord(id: "s-first", userId: "ana", title: "a", createdAt: 50)
        let ended = SessionRecord(id: "s-ended", userId: "ana", title: nil, state: .ended, createdAt: 40, endedAt: 45)
        let bens = SessionRecord(id: "s-ben", userId: "ben", title: nil, createdAt: 55)
        #expect(s.write([.upsertSession(later), .upsertSession(first), .upsertSession(ended), .upsertSession(bens)]) == [nil])
        let device = ActiveClient(clientType: "ios", deviceId: "phone", lastActivityAt: 70)
        #expect(s.write([.setSessionActiveClient(sessionId: "s-later", expected: nil, new: device)]) == [nil])
        var active = later
        active.activeClient = device
        #expect(try s.store.userEntry(id: "ana").openSessions == [first, active])
        #expect(try s.store.userEntry(id: "ben").openSessions == [bens])
        #expect(try s.store.userEntry(id: "nobody").openSessions.isEmpty)

        #expect(s.write([.endSession(sessionId: "s-first", endedAt: 80)]) == [nil])
        #expect(try s.store.userEntries(ids: ["ana", "ben"]).map { $0.openSessions.map(\.id) } == [["s-later"], ["s-ben"]])
    }

    @Test(arguments: StoreFactory.all)
    func theHubStartsWithThePendingApprovalsOnly(factory: StoreFactory) throws {
        let s = try factory.open()
        fill(s)
        let approval = ApprovalRecord(id: "apr_7", userId: "ana", sessionId: "s1", toolName: "bash", summary: "ls",
                                      createdAt: 1_000, expiresAt: 61_000)
        var decided = ApprovalRecord(id: "apr_5", userId: "ben", sessionId: "s2", toolName: "bash", summary: "rm",
                                     createdAt: 900, expiresAt: 1_900)
        decided.state = .denied
        #expect(s.write([.createApproval(approval), .upsertApproval(decided)]) == [nil])
        #expect(try s.store.pendingApprovals(dueBy: .max, limit: .max) == [approval])
        // The highest approval sequence stored (7) is where new ids continue. The store's own counter (in memory,
        // SQLite) begins there at its first reservation; PostgreSQL's sequence began at migration, and is moved
        // past it by the conflict of an id already taken, as the hub does.
        #expect(s.write([.createApproval(approval)]) == [.idTaken(.approval, latest: 7)])
        let above: Int64 = factory.name == StoreFactory.postgres.name ? 7 : 0
        #expect(try s.store.reserveIds(.approval, count: 2, above: above) == [8, 9])
        let whole = try s.store.loadSnapshot()
        #expect(whole.users.count == 2 && whole.latestOffsets == ["ana": 3] && whole.pendingApprovals == [approval])
    }
}
