import Auth
@testable import Gateway
import GatewayProtocol
import GatewayTestSupport
import Synchronization
import Testing

/// Another node's decision lands in the store between the hub's decision and its commit (`DeferredStore` holds the
/// hub's batch while the test writes straight into the store). The hub must answer with the store's winner.
@Suite struct StoreDecisionRaceTests {
    let store = DeferredStore()
    let scheduler = ManualScheduler()
    let hub: GatewayHub

    init() throws {
        hub = GatewayHub(store: store, scheduler: scheduler, clock: scheduler)
        try hub.start()
        for id in ["ann", "bob", "carol"] { hub.upsertUser(id: id, displayName: nil) { _ in } }
        store.flush()
    }

    /// What the other node commits; it must not lose (it decided first).
    func otherNode(_ writes: [StoreWrite]) {
        let failure = Mutex<String?>("not committed")
        store.inner.write(writes) { error in failure.withLock { $0 = error.map { "\($0)" } } }
        #expect(failure.withLock { $0 } == nil)
    }

    func publish(key: String, name: String) -> (() -> Result<Int64, GatewayError>?) {
        var result: Result<Int64, GatewayError>?
        hub.publish(userId: "ann", name: name, payload: nil, idempotencyKey: key) { result = $0 }
        return { result }
    }

    @Test func anIdempotencyKeyClaimedElsewhereFirstAnswersWithTheStoredResponse() {
        let result = publish(key: "k1", name: "paid")
        #expect(result() == nil && store.pending.count == 1)
        // The other node ran the same request under the same key and stored its offset (7).
        let sameRequest = SecretDigest.sha256Hex(ServerFrames.encode(CustomEventData(name: "paid", payload: nil)))
        otherNode([.claimIdempotency(scope: "publish:ann", key: "k1", response: ServerFrames.encode(PublishResult(offset: 7)),
                                     requestHash: sameRequest, createdAt: 1)])
        store.flush()
        #expect(result() == .success(7))
        #expect((try? store.inner.events(userId: "ann", after: 0, limit: 10))?.isEmpty == true)   // nothing stored twice
    }

    @Test func anIdempotencyKeyClaimedElsewhereForAnotherRequestIsRefusedAsReused() {
        let result = publish(key: "k2", name: "paid")
        otherNode([.claimIdempotency(scope: "publish:ann", key: "k2", response: ServerFrames.encode(PublishResult(offset: 3)),
                                     requestHash: "a-different-request", createdAt: 1)])
        store.flush()
        if case .failure(let error)? = result() { #expect(error.code == .idempotencyKeyReused) } else { Issue.record("expected a refusal") }
    }

    @Test func aConnectCodeTheOtherNodeGaveToSomeoneElseIsDrawnAgain() throws {
        var answered: Result<ConnectCodeData, GatewayError>?
        hub.connectCode(for: "bob", regenerate: false) { answered = $0 }
        let drawn = try #require(store.pending.flatMap { $0 }.compactMap { write -> ConnectCodeRecord? in
            if case .claimConnectCode(let record, _) = write { return record } else { return nil }
        }.first)
        otherNode([.upsertConnectCode(ConnectCodeRecord(code: drawn.code, userId: "carol", createdAt: 1))])
        store.flush()
        let code = try #require(try answered?.get().code)
        #expect(code != drawn.code && code.count == 6)
        let stored = try store.inner.loadSnapshot().connectCodes
        #expect(stored.first { $0.code == drawn.code }?.userId == "carol")
        #expect(stored.first { $0.code == code }?.userId == "bob")
        // Memory agrees with the store: bob's current code is the new one.
        var again: String?
        hub.connectCode(for: "bob", regenerate: false) { again = try? $0.get().code }
        #expect(again == code)
    }

    /// Bob's code expired and, once out of quarantine, another node gave it to carol: when bob next asks, the revoke of
    /// his old code loses to her claim, nothing of his is left to revoke, and he gets a new code (not a storage error).
    @Test func aPreviousCodeReissuedElsewhereAfterItsQuarantineIsLeftToItsNewOwner() throws {
        var settings = GatewaySettings()
        settings.relationships.connectCodeLifetimeMs = 1_000
        settings.relationships.connectCodeQuarantineMs = 10_000
        let store = DeferredStore(), scheduler = ManualScheduler()
        let hub = GatewayHub(store: store, scheduler: scheduler, clock: scheduler, settings: settings)
        try hub.start()
        for id in ["bob", "carol"] { hub.upsertUser(id: id, displayName: nil) { _ in } }
        store.flush()
        var first: String?
        hub.connectCode(for: "bob", regenerate: false) { first = try? $0.get().code }
        store.flush()
        let old = try #require(first)
        scheduler.advance(by: 11_000)   // expired after 1 s, out of quarantine 10 s later
        let now = scheduler.now()
        let reissued = ConnectCodeRecord(code: old, userId: "carol", createdAt: now)
        let failure = Mutex<String?>("not committed")
        store.inner.write([.claimConnectCode(reissued, retiredBy: now - 10_000)]) { error in failure.withLock { $0 = error.map { "\($0)" } } }
        #expect(failure.withLock { $0 } == nil)

        var answered: Result<ConnectCodeData, GatewayError>?
        hub.connectCode(for: "bob", regenerate: false) { answered = $0 }
        for _ in 0..<GatewayHub.connectCodeAttempts where answered == nil { store.flush() }
        let code = try #require(try answered?.get().code, "\(String(describing: answered))")
        #expect(code != old)
        let stored = try store.inner.loadSnapshot().connectCodes
        #expect(stored.first { $0.code == old } == reissued)
        #expect(stored.first { $0.code == code }?.userId == "bob")
    }

    @Test func anInviteCodeTheOtherNodeGaveAnotherInviteIsDrawnAgain() throws {
        var group: GroupData?
        hub.createGroup(ownerId: "ann", .init(name: "Family", maxMembers: 5, invitePolicy: "members")) { group = try? $0.get() }
        store.flush()
        let groupId = try #require(group?.groupId)
        var created: Result<InviteData, GatewayError>?
        hub.createInvite(inviterId: "ann", groupId: groupId, .init()) { created = $0 }
        let drawn = try #require(store.pending.flatMap { $0 }.compactMap { write -> InviteRecord? in
            if case .upsertInvite(let record) = write { return record } else { return nil }
        }.first)
        // The other node drew the same code a moment earlier, for its own group.
        let theirs = InviteRecord(code: drawn.code, groupId: "g-elsewhere", inviterId: "carol", createdAt: 1, expiresAt: 9_999_999)
        otherNode([.upsertInvite(theirs)])
        store.flush()
        let code = try #require(try created?.get().code)
        #expect(code != drawn.code && code.count == 8)
        let stored = try store.inner.loadSnapshot().invites
        #expect(stored.first { $0.code == drawn.code } == theirs)   // never overwritten
        #expect(stored.first { $0.code == code }?.groupId == groupId)
        // One `invite_created` for ann: the lost attempt's event was taken back with its batch.
        let events = try store.inner.events(userId: "ann", after: 0, limit: 10).filter { $0.type == "invite_created" }
        #expect(events.count == 1)
        // Redeeming the code ann got joins her group, not the other node's.
        var redeemed: GroupData?
        hub.redeemInvite(userId: "bob", code: code) { redeemed = try? $0.get() }
        store.flush()
        #expect(redeemed?.groupId == groupId)
    }

    @Test func anInviteRedeemedElsewhereFirstIsRefusedAndTheMembershipTakenBack() throws {
        let groupId = try group(maxMembers: 5)
        let code = try invite(into: groupId)

        var redeemed: Result<GroupData, GatewayError>?
        hub.redeemInvite(userId: "bob", code: code) { redeemed = $0 }
        otherNode([.redeemInvite(code: code, usedBy: "carol", usedAt: 1)])
        store.flush()
        guard case .failure(let error)? = redeemed else {
            Issue.record("expected a refusal, got \(String(describing: redeemed))")
            return
        }
        #expect(error.code == .inviteUsed)
        #expect(hub.groupData(groupId)?.members.map(\.user.userId).contains("bob") == false)
        let stored = try store.inner.loadSnapshot()
        #expect(stored.invites.first { $0.code == code }?.usedBy == "carol")
        #expect(stored.groupMembers.contains { $0.userId == "bob" } == false)
        // Memory took the store's invite: a second try is refused at once, without a commit.
        var again: Result<GroupData, GatewayError>?
        hub.redeemInvite(userId: "bob", code: code) { again = $0 }
        #expect(store.pending.isEmpty)
        if case .failure(let second)? = again { #expect(second.code == .inviteUsed) } else { Issue.record("expected a refusal") }
    }

    @Test func approvalAndMessageIdsAnotherNodeUsedAreDrawnAgain() throws {
        var session: String?
        hub.createSession(id: "s1", userId: "ann", title: nil) { session = try? $0.get().sessionId }
        store.flush()
        #expect(session == "s1")
        var created: ApprovalData?
        hub.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: nil, idempotencyKey: nil) {
            created = try? $0.get()
        }
        let theirs = ApprovalRecord(id: "apr_1", userId: "ann", sessionId: "s1", toolName: "theirs", summary: "", createdAt: 1, expiresAt: 9)
        otherNode([.createApproval(theirs)])
        store.flush()
        #expect(created?.requestId == "apr_2")
        #expect(try store.inner.approval(id: "apr_1") == theirs)
        #expect(try store.inner.approval(id: "apr_2")?.toolName == "shell")

        hub.addContact("ann", "bob") { _ in }
        store.flush()
        let ann = FakeClient("ann", "a1", "ios")
        hub.connect(ann, resumeAfter: nil)
        hub.handle(Array(#"{"id":"m","type":"send_message","to":"bob","text":"hi"}"#.utf8), from: ann)
        otherNode([.insertMessage(MessageRecord(id: 1, from: "carol", to: "bob", text: "theirs", sentAt: 1))])
        store.flush()
        let sent = try #require(ann.reply("m")?["result"] as? [String: Any])
        #expect(sent["messageId"] as? Int64 == 2)
        #expect(try store.inner.messages(between: "ann", and: "bob", before: nil, limit: 10).map(\.id) == [2])
    }

    /// Ids are reserved from the store: another node reserving (and using) ids between this hub's reservation and its
    /// commit never meets the hub's ids, so every batch commits at its first attempt.
    @Test func idsAnotherNodeReservesNeverMeetTheHubs() throws {
        hub.createSession(id: "s1", userId: "ann", title: nil) { _ in }
        hub.addContact("ann", "bob") { _ in }
        store.flush()
        var created: ApprovalData?
        hub.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: nil, idempotencyKey: nil) {
            created = try? $0.get()
        }
        let ann = FakeClient("ann", "a1", "ios")
        hub.connect(ann, resumeAfter: nil)
        hub.handle(Array(#"{"id":"m","type":"send_message","to":"bob","text":"hi"}"#.utf8), from: ann)
        let approvalId = try #require(store.inner.reserveIds(.approval, count: 1, above: 0).first)
        let messageId = try #require(store.inner.reserveIds(.message, count: 1, above: 0).first)
        otherNode([.createApproval(ApprovalRecord(id: "apr_\(approvalId)", userId: "ann", sessionId: "s1", toolName: "theirs",
                                                  summary: "", createdAt: 1, expiresAt: 9)),
                   .insertMessage(MessageRecord(id: messageId, from: "carol", to: "bob", text: "theirs", sentAt: 1))])
        let batches = store.inner.committedBatches
        let queued = store.pending.count
        store.flushInRounds()
        #expect(store.inner.committedBatches == batches + queued)   // nothing was sent again under another id
        #expect(created?.requestId == "apr_\(approvalId - 1)")
        let sent = try #require(ann.reply("m")?["result"] as? [String: Any])
        #expect(sent["messageId"] as? Int64 == messageId - 1)
    }

    /// Two nodes create the same new user at once (a device connecting on each): the store keeps the first row, and
    /// this hub takes its hex code instead of the one it drew.
    @Test func aUserAnotherNodeCreatedFirstKeepsItsHexCodeHere() throws {
        let zed = FakeClient("zed", "z1", "ios")
        hub.connect(zed, resumeAfter: nil)
        let drawn = try #require(hub.users["zed"]?.hexCode)
        let theirs = UserRecord(id: "zed", hexCode: drawn == "0000abcd" ? "0000abce" : "0000abcd", createdAt: 1)
        otherNode([.insertUser(theirs)])
        store.flush()
        #expect(hub.users["zed"] == theirs)
        #expect(hub.usersByHexCode[theirs.hexCode] == "zed" && hub.usersByHexCode[drawn] == nil)
        #expect(try store.inner.userEntry(id: "zed").user == theirs)
        #expect(try store.inner.userEntry(id: "zed").devices.map(\.id) == ["z1"])
    }
}
