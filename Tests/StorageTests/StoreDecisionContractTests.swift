import Gateway
import Testing
@testable import Storage

/// A `GatewayStore` under test and how to close it. Every adapter (in-memory reference, SQLite, PostgreSQL) is in
/// `StoreFactory.all`.
struct StoreFactory: Sendable, CustomTestStringConvertible {
    let name: String
    let open: @Sendable () throws -> OpenedStore
    var testDescription: String { name }

    static let memory = StoreFactory(name: "in-memory") { OpenedStore(InMemoryGatewayStore()) {} }
    static let sqlite = StoreFactory(name: "SQLite") {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        return OpenedStore(store) { store.close(); _ = directory }
    }
    /// A fresh database of its own on the test process's PostgreSQL cluster.
    static let postgres = StoreFactory(name: "PostgreSQL") {
        let store = try PostgresGatewayStore(options: PostgresStoreOptions(url: try PostgresCluster.shared().createDatabase()))
        return OpenedStore(store) { store.close() }
    }
    static let all = [memory, sqlite, postgres]
}

/// An open store; `close` releases it (and its files).
final class OpenedStore {
    let store: any GatewayStore
    private let closer: () -> Void
    init(_ store: any GatewayStore, close: @escaping () -> Void) { self.store = store; closer = close }
    deinit { closer() }

    /// Hands the batches over as one job (as the hub does) and waits for their results, in order.
    func write(_ batches: [StoreWrite]...) -> [StoreConflict?] {
        let recorder = Recorder<[String?]>()
        let conflicts = Recorder<[StoreConflict?]>()
        store.write(batches: batches) { errors in
            // Anything that is not a lost decision is a broken store: recorded as text so the test shows it.
            recorder.record(errors.map { error in error.flatMap { $0 is StoreConflict ? nil : "\($0)" } })
            conflicts.record(errors.map { $0 as? StoreConflict })
        }
        #expect(recorder.wait(for: 1).first?.allSatisfy { $0 == nil } == true)
        return conflicts.wait(for: 1).first ?? []
    }

    /// Hands the batches over as one job and waits for their outcomes: each batch's receipt, or its lost decision
    /// (anything else is recorded as an issue and comes back nil).
    func commit(_ batches: [StoreWrite]...) -> [Result<StoreReceipt, StoreConflict>?] {
        let recorder = Recorder<[Result<StoreReceipt, Error>]>()
        store.commit(batches: batches) { recorder.record($0) }
        return (recorder.wait(for: 1).first ?? []).map { result in
            switch result {
            case .success(let receipt): return .success(receipt)
            case .failure(let conflict as StoreConflict): return .failure(conflict)
            case .failure(let error): Issue.record("\(error)"); return nil
            }
        }
    }
}

extension ApprovalRecord {
    func with(id: String) -> ApprovalRecord {
        var copy = self
        copy.id = id
        return copy
    }
}

/// The decisions two nodes sharing a store could race on, which the store (not a node's memory) must make atomically:
/// the loser's whole batch is rolled back and it learns the store's current row.
@Suite struct StoreDecisionContractTests {
    static let pending = ApprovalRecord(id: "apr_1", userId: "u1", sessionId: "s1", toolName: "bash", summary: "ls",
                                        createdAt: 1_000, expiresAt: 61_000)

    static func decided(_ state: ApprovalState, by device: String?, at time: Int64) -> ApprovalRecord {
        var approval = pending
        approval.state = state
        approval.decidedByDeviceId = device
        approval.decidedByClientType = device.map { _ in "ios" }
        approval.resolvedAt = time
        return approval
    }

    @Test(arguments: StoreFactory.all)
    func theFirstAnswerOfAnApprovalWins(factory: StoreFactory) throws {
        let s = try factory.open()
        #expect(s.write([.upsertApproval(Self.pending)]) == [nil])
        let phone = Self.decided(.approved, by: "phone", at: 5_000)
        let desk = Self.decided(.denied, by: "desk", at: 5_001)
        let marker = UserRecord(id: "loser-was-here", hexCode: "00000001", createdAt: 1)
        // Both in one job, as two nodes' commits would be serialised by the store.
        let results = s.write([.decideApproval(phone)], [.upsertUser(marker), .decideApproval(desk)])
        #expect(results == [nil, .approvalDecided(current: phone)])
        #expect(try s.store.approval(id: "apr_1") == phone)
        #expect(try s.store.loadSnapshot().users.isEmpty)      // the loser's batch left nothing behind
        #expect(try s.store.loadSnapshot().pendingApprovals.isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func aTimeoutFiresOnceAndLosesToAnEarlierAnswer(factory: StoreFactory) throws {
        let s = try factory.open()
        #expect(s.write([.upsertApproval(Self.pending)]) == [nil])
        let timedOut = Self.decided(.timedOut, by: nil, at: 61_000)
        #expect(s.write([.decideApproval(timedOut)], [.decideApproval(timedOut)]) == [nil, .approvalDecided(current: timedOut)])

        let other = try factory.open()
        let answer = Self.decided(.approved, by: "phone", at: 60_999)
        #expect(other.write([.upsertApproval(Self.pending)], [.decideApproval(answer)], [.decideApproval(timedOut)])
                == [nil, nil, .approvalDecided(current: answer)])
    }

    @Test(arguments: StoreFactory.all)
    func theDeadlineSweepReadsPendingApprovalsDueEarliestFirst(factory: StoreFactory) throws {
        let s = try factory.open()
        func approval(_ n: Int, expiresAt: Int64) -> ApprovalRecord {
            var a = Self.pending
            a.id = "apr_\(n)"
            a.expiresAt = expiresAt
            return a
        }
        #expect(s.write([.createApproval(approval(1, expiresAt: 300)), .createApproval(approval(2, expiresAt: 100)),
                         .createApproval(approval(3, expiresAt: 200)), .createApproval(approval(4, expiresAt: 900))]) == [nil])
        #expect(s.write([.decideApproval(Self.decided(.approved, by: "phone", at: 50).with(id: "apr_3"))]) == [nil])
        #expect(try s.store.pendingApprovals(dueBy: 300, limit: 10).map(\.id) == ["apr_2", "apr_1"])
        #expect(try s.store.pendingApprovals(dueBy: 300, limit: 1).map(\.id) == ["apr_2"])
        #expect(try s.store.pendingApprovals(dueBy: 99, limit: 10).isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func decidingAnApprovalTheStoreDoesNotHaveReportsNone(factory: StoreFactory) throws {
        let s = try factory.open()
        #expect(s.write([.decideApproval(Self.decided(.approved, by: "phone", at: 5_000))]) == [.approvalDecided(current: nil)])
    }

    @Test(arguments: StoreFactory.all)
    func theActiveClientOfASessionIsACompareAndSet(factory: StoreFactory) throws {
        let s = try factory.open()
        let phone = ActiveClient(clientType: "ios", deviceId: "phone", lastActivityAt: 2_000)
        let desk = ActiveClient(clientType: "desktop", deviceId: "desk", lastActivityAt: 2_001)
        let session = SessionRecord(id: "s1", userId: "u1", createdAt: 1_000)
        #expect(s.write([.upsertSession(session)]) == [nil])
        // Two devices attach, both believing nobody was active: the second loses and sees the first.
        var withPhone = session
        withPhone.activeClient = phone
        #expect(s.write([.setSessionActiveClient(sessionId: "s1", expected: nil, new: phone)],
                        [.setSessionActiveClient(sessionId: "s1", expected: nil, new: desk)])
                == [nil, .sessionChanged(current: withPhone)])
        // Retrying against what the store reported succeeds.
        #expect(s.write([.setSessionActiveClient(sessionId: "s1", expected: phone, new: desk)]) == [nil])
        #expect(try s.store.session(id: "s1")?.activeClient == desk)
        // An ended session takes no active client, and a missing one reports none.
        var ended = session
        ended.activeClient = desk
        ended.state = .ended
        ended.endedAt = 3_000
        #expect(s.write([.upsertSession(ended)]) == [nil])
        #expect(s.write([.setSessionActiveClient(sessionId: "s1", expected: desk, new: phone)]) == [.sessionChanged(current: ended)])
        #expect(s.write([.setSessionActiveClient(sessionId: "nope", expected: nil, new: phone)]) == [.sessionChanged(current: nil)])
    }

    @Test(arguments: StoreFactory.all)
    func aSessionEndsOnceAndKeepsItsStoredActiveClient(factory: StoreFactory) throws {
        let s = try factory.open()
        let desk = ActiveClient(clientType: "desktop", deviceId: "desk", lastActivityAt: 2_001)
        let session = SessionRecord(id: "s1", userId: "u1", activeClient: desk, createdAt: 1_000)
        #expect(s.write([.upsertSession(session)]) == [nil])
        var ended = session
        ended.state = .ended
        ended.endedAt = 5_000
        #expect(s.write([.endSession(sessionId: "s1", endedAt: 5_000)], [.endSession(sessionId: "s1", endedAt: 5_001)])
                == [nil, .sessionChanged(current: ended)])
        #expect(try s.store.session(id: "s1") == ended)
        #expect(try s.store.loadSnapshot().openSessions.isEmpty)
        #expect(s.write([.endSession(sessionId: "nope", endedAt: 1)]) == [.sessionChanged(current: nil)])
    }

    /// The store takes each log's next offset in the insert (the event's own offset is ignored) and names it in the
    /// batch's receipt; a batch that fails takes nothing, so the next append leaves no hole.
    @Test(arguments: StoreFactory.all)
    func theStoreTakesEachLogsNextOffsetAndNamesItInTheReceipt(factory: StoreFactory) throws {
        let s = try factory.open()
        #expect(s.commit([event("u1", 0), event("u1", 0)], [event("u2", 0), event("u1", 0)])
                == [.success(StoreReceipt(offsets: [1, 2])), .success(StoreReceipt(offsets: [1, 3]))])
        let message = MessageRecord(id: 7, from: "u2", to: "u1", text: "hi", sentAt: 1)
        #expect(s.write([.insertMessage(message)]) == [nil])
        #expect(s.commit([.insertMessage(message), event("u1", 0)], [event("u1", 99)])
                == [.failure(.idTaken(.message, latest: 7)), .success(StoreReceipt(offsets: [4]))])
        #expect(try s.store.events(userId: "u1", after: 0, limit: 10).map(\.offset) == [1, 2, 3, 4])
        #expect(try s.store.events(userId: "u2", after: 0, limit: 10).map(\.offset) == [1])
        #expect(try s.store.userEntry(id: "u1").latestOffset == 4)
    }

    /// A log pruning emptied goes on above its last offset: offsets never restart.
    @Test(arguments: StoreFactory.all)
    func aLogPruningEmptiedGoesOnAboveItsLastOffset(factory: StoreFactory) throws {
        let s = try factory.open()
        #expect(s.commit([event("u1", 0), event("u1", 0)]) == [.success(StoreReceipt(offsets: [1, 2]))])
        #expect(try s.store.pruneEvents(before: 10_000, keepLatest: 0) == 2)
        #expect(s.commit([event("u1", 0)]) == [.success(StoreReceipt(offsets: [3]))])
    }

    /// Two nodes creating the same new user: the first row stays and both batches' receipts carry it.
    @Test(arguments: StoreFactory.all)
    func aUserCreatedTwiceKeepsTheFirstRowAndBothLearnIt(factory: StoreFactory) throws {
        let s = try factory.open()
        let first = UserRecord(id: "u1", hexCode: "0000000a", createdAt: 1)
        let second = UserRecord(id: "u1", hexCode: "0000000b", createdAt: 2)
        let device = DeviceRecord(id: "d1", userId: "u1", clientType: "phone", createdAt: 2)
        #expect(s.commit([.insertUser(first)], [.insertUser(second), .upsertDevice(device)])
                == [.success(StoreReceipt(users: [first])), .success(StoreReceipt(users: [first]))])
        #expect(try s.store.userEntry(id: "u1").user == first)
        #expect(try s.store.userEntry(id: "u1").devices == [device])
        #expect(try s.store.userId(hexCode: "0000000b") == nil)
    }

    /// Ids come from the store: ascending, never handed out twice, above what was stored when the counter began and
    /// above what the caller names.
    @Test(arguments: StoreFactory.all)
    func idsAreReservedOnceInIncreasingOrder(factory: StoreFactory) throws {
        let s = try factory.open()
        let first = try s.store.reserveIds(.message, count: 3, above: 0)
        let second = try s.store.reserveIds(.message, count: 2, above: 0)
        #expect(first.count == 3 && second.count == 2)
        #expect(first == first.sorted() && second == second.sorted() && first.last! < second.first!)
        let approvals = try s.store.reserveIds(.approval, count: 2, above: 0)
        #expect(approvals.count == 2 && approvals[0] < approvals[1] && approvals[0] >= 1)
        #expect(try s.store.reserveIds(.message, count: 1, above: 500).first! > 500)
        #expect(try s.store.reserveIds(.message, count: 1, above: 0).first! > 501)
    }

    /// An idempotent publish's answer names the offset the store gave its event, decided in the same batch.
    @Test(arguments: StoreFactory.all)
    func anIdempotencyKeyCanAnswerWithTheOffsetTheStoreTook(factory: StoreFactory) throws {
        let s = try factory.open()
        #expect(s.commit([event("u1", 0)]) == [.success(StoreReceipt(offsets: [1]))])
        let claim = StoreWrite.claimIdempotentOffset(scope: "publish:u1", key: "k", requestHash: "h", createdAt: 1)
        #expect(s.commit([event("u1", 0), claim]) == [.success(StoreReceipt(offsets: [2]))])
        let stored = IdempotencyRecord(response: Array(#"{"offset":2}"#.utf8), requestHash: "h")
        #expect(try s.store.idempotentResponse(scope: "publish:u1", key: "k") == stored)
        #expect(s.commit([event("u1", 0), claim])
                == [.failure(.idempotencyKeyClaimed(scope: "publish:u1", key: "k", current: stored))])
        #expect(try s.store.events(userId: "u1", after: 0, limit: 10).map(\.offset) == [1, 2])
    }

    @Test(arguments: StoreFactory.all)
    func anIdempotencyKeyIsClaimedOnce(factory: StoreFactory) throws {
        let s = try factory.open()
        let first = IdempotencyRecord(response: Array("first".utf8), requestHash: "h1")
        #expect(s.write([.claimIdempotency(scope: "publish:u1", key: "k", response: first.response, requestHash: "h1", createdAt: 1)],
                        [event("u1", 1), .claimIdempotency(scope: "publish:u1", key: "k", response: Array("second".utf8), requestHash: "h2", createdAt: 2)],
                        [.claimIdempotency(scope: "publish:u2", key: "k", response: [], requestHash: "h3", createdAt: 3)])
                == [nil, .idempotencyKeyClaimed(scope: "publish:u1", key: "k", current: first), nil])
        #expect(try s.store.idempotentResponse(scope: "publish:u1", key: "k") == first)
        #expect(try s.store.events(userId: "u1", after: 0, limit: 10).isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func severalIdempotencyKeysAreReadInOneCallInOrder(factory: StoreFactory) throws {
        let s = try factory.open()
        let first = IdempotencyRecord(response: Array("first".utf8), requestHash: "h1")
        let second = IdempotencyRecord(response: Array("second".utf8), requestHash: "h2")
        #expect(s.write([.claimIdempotency(scope: "message:u1", key: "a", response: first.response, requestHash: "h1", createdAt: 1),
                         .claimIdempotency(scope: "message:u2", key: "a", response: second.response, requestHash: "h2", createdAt: 2)])
                == [nil])
        let keys = [IdempotencyKey(scope: "message:u2", key: "a"), IdempotencyKey(scope: "message:u1", key: "missing"),
                    IdempotencyKey(scope: "message:u1", key: "a")]
        #expect(try s.store.idempotentResponses(keys) == [second, nil, first])
        #expect(try s.store.idempotentResponses(Array(keys.prefix(1))) == [second])
        #expect(try s.store.idempotentResponses([]) == [])
    }

    @Test(arguments: StoreFactory.all)
    func approvalAndMessageIdsAreTakenOnce(factory: StoreFactory) throws {
        let s = try factory.open()
        var theirs = Self.pending
        theirs.id = "apr_7"
        var mine = theirs
        mine.toolName = "rm"
        let message = MessageRecord(id: 3, from: "u1", to: "u2", text: "theirs", sentAt: 1)
        #expect(s.write([.createApproval(theirs), .insertMessage(message)],
                        [.createApproval(mine)],
                        [.insertMessage(MessageRecord(id: 3, from: "u2", to: "u1", text: "mine", sentAt: 2))])
                == [nil, .idTaken(.approval, latest: 7), .idTaken(.message, latest: 3)])
        #expect(try s.store.approval(id: "apr_7") == theirs)       // never overwritten
        #expect(try s.store.messages(between: "u1", and: "u2", before: nil, limit: 10) == [message])
    }

    @Test(arguments: StoreFactory.all)
    func anInviteIsRedeemedOnce(factory: StoreFactory) throws {
        let s = try factory.open()
        let invite = InviteRecord(code: "ABCD2345", groupId: "g1", inviterId: "u1", createdAt: 1, expiresAt: 1_000)
        #expect(s.write([.upsertInvite(invite)]) == [nil])
        var used = invite
        used.state = .used
        used.usedBy = "u2"
        used.usedAt = 5
        let marker = UserRecord(id: "loser-was-here", hexCode: "00000001", createdAt: 1)
        #expect(s.write([.redeemInvite(code: "ABCD2345", usedBy: "u2", usedAt: 5)],
                        [.upsertUser(marker), .redeemInvite(code: "ABCD2345", usedBy: "u3", usedAt: 6)])
                == [nil, .inviteRedeemed(current: used)])
        #expect(try s.store.loadSnapshot().invites == [used])
        #expect(try s.store.loadSnapshot().users.isEmpty)
        #expect(s.write([.redeemInvite(code: "NOPE2345", usedBy: "u3", usedAt: 6)]) == [.inviteRedeemed(current: nil)])
    }

    @Test(arguments: StoreFactory.all)
    func anInviteCodeIsInsertedOnceAndRewrittenOnlyByItsOwnInvite(factory: StoreFactory) throws {
        let s = try factory.open()
        let theirs = InviteRecord(code: "ABCD2345", groupId: "g1", inviterId: "u1", createdAt: 1, expiresAt: 1_000)
        let marker = UserRecord(id: "loser-was-here", hexCode: "00000001", createdAt: 1)
        // Another invite drawing the same code (another group, inviter or time) loses its whole batch.
        let otherGroup = InviteRecord(code: "ABCD2345", groupId: "g2", inviterId: "u2", recipient: "+4915112345678", createdAt: 2, expiresAt: 9)
        var otherTime = theirs
        otherTime.createdAt = 3
        #expect(s.write([.upsertInvite(theirs)], [.upsertUser(marker), .upsertInvite(otherGroup)], [.upsertInvite(otherTime)])
                == [nil, .inviteCodeTaken(current: theirs), .inviteCodeTaken(current: theirs)])
        #expect(try s.store.loadSnapshot().users.isEmpty)
        // The same invite may still be rewritten (its state, its expiry).
        var revoked = theirs
        revoked.state = .revoked
        #expect(s.write([.upsertInvite(revoked)]) == [nil])
        #expect(try s.store.loadSnapshot().invites == [revoked])
    }

    @Test(arguments: StoreFactory.all)
    func aConnectCodeIsClaimedByOneUser(factory: StoreFactory) throws {
        let s = try factory.open()
        let mine = ConnectCodeRecord(code: "123456", userId: "u1", createdAt: 1)
        #expect(s.write([.upsertConnectCode(mine)], [.upsertConnectCode(ConnectCodeRecord(code: "123456", userId: "u2", createdAt: 2))])
                == [nil, .connectCodeTaken(current: mine)])
        // Its owner may still update it (revoke it).
        var revoked = mine
        revoked.revokedAt = 5
        #expect(s.write([.upsertConnectCode(revoked)]) == [nil])
        #expect(try s.store.loadSnapshot().connectCodes == [revoked])
    }

    @Test(arguments: StoreFactory.all)
    func aRetiredConnectCodeChangesOwnerOnlyOutOfQuarantine(factory: StoreFactory) throws {
        let s = try factory.open()
        let live = ConnectCodeRecord(code: "123456", userId: "u1", createdAt: 1)
        let retired = ConnectCodeRecord(code: "654321", userId: "u1", createdAt: 1, revokedAt: 10)
        let expired = ConnectCodeRecord(code: "111111", userId: "u5", createdAt: 1, expiresAt: 20)
        #expect(s.write([.upsertConnectCode(live), .upsertConnectCode(retired), .upsertConnectCode(expired)]) == [nil])
        func claim(_ code: String, _ user: String, retiredBy: Int64) -> StoreWrite {
            .claimConnectCode(ConnectCodeRecord(code: code, userId: user, createdAt: 100), retiredBy: retiredBy)
        }
        // A live code, and retired ones still in quarantine, stay their owner's.
        #expect(s.write([claim("123456", "u2", retiredBy: 1_000)], [claim("654321", "u2", retiredBy: 9)], [claim("111111", "u2", retiredBy: 19)])
                == [.connectCodeTaken(current: live), .connectCodeTaken(current: retired), .connectCodeTaken(current: expired)])
        // Out of quarantine (revoked, or expired, at or before the cutoff) they change owner; an unknown code is new.
        #expect(s.write([claim("654321", "u2", retiredBy: 10)], [claim("111111", "u3", retiredBy: 20)], [claim("222222", "u4", retiredBy: 0)])
                == [nil, nil, nil])
        let codes = try s.store.loadSnapshot().connectCodes.sorted { $0.code < $1.code }
        #expect(codes.map(\.code) == ["111111", "123456", "222222", "654321"])
        #expect(codes.map(\.userId) == ["u3", "u1", "u4", "u2"])
        #expect(codes.allSatisfy { $0.code == "123456" ? $0.createdAt == 1 : $0.createdAt == 100 && $0.revokedAt == nil && $0.expiresAt == nil })
    }

    static func pushJob(due: Int64, id: Int64 = 0) -> PushJobRecord {
        PushJobRecord(id: id, userId: "u1", deviceId: "d1", target: PushTarget(provider: "webhook", token: "https://example.test/hook", kind: "alert"),
                      notice: PushNotice(type: "message", genericTitle: "New message"), nextAttemptAt: due, createdAt: due)
    }

    @Test(arguments: StoreFactory.all)
    func aPresencePushIsClaimedByOneNodePerIntervalAndTheLoserEnqueuesNothing(factory: StoreFactory) throws {
        let s = try factory.open()
        func claim(_ user: String, at: Int64) -> StoreWrite { .claimPresencePush(userId: user, at: at, intervalMs: 1_000) }
        // Two nodes in one job (as two writers racing): the first claim wins, the second batch is rolled back whole.
        #expect(s.write([claim("u1", at: 100), .enqueuePush(Self.pushJob(due: 100))],
                        [claim("u1", at: 105), .enqueuePush(Self.pushJob(due: 105))])
                == [nil, .presencePushClaimed(userId: "u1", at: 100)])
        #expect(try s.store.duePushJobs(now: 10_000, limit: 10).map(\.nextAttemptAt) == [100])
        // Another user's pushes are claimed apart; within the interval the claim holds, from its end on it is free.
        #expect(s.write([claim("u2", at: 105)]) == [nil])
        #expect(s.write([claim("u1", at: 1_099)]) == [.presencePushClaimed(userId: "u1", at: 100)])
        #expect(s.write([claim("u1", at: 1_100)]) == [nil])
        #expect(s.write([claim("u1", at: 1_200)]) == [.presencePushClaimed(userId: "u1", at: 1_100)])
        // A node whose clock is behind the claim's also loses (the claim is newer than its own time).
        #expect(s.write([claim("u1", at: 50)]) == [.presencePushClaimed(userId: "u1", at: 1_100)])
    }

    @Test(arguments: StoreFactory.all)
    func pushJobIdsAreTheStores(factory: StoreFactory) throws {
        let s = try factory.open()
        // Two nodes' records may carry the same id (or none): the store numbers them.
        #expect(s.write([.enqueuePush(Self.pushJob(due: 10)), .enqueuePush(Self.pushJob(due: 20))], [.enqueuePush(Self.pushJob(due: 30, id: 1))])
                == [nil, nil])
        #expect(try s.store.duePushJobs(now: 100, limit: 10).map(\.id) == [1, 2, 3])
        #expect(try s.store.pushJob(id: 3)?.nextAttemptAt == 30)
    }

    @Test(arguments: StoreFactory.all)
    func aDuePushJobIsClaimedByOneNodeUntilItsLeaseRunsOutOrItsOutcomeIsRecorded(factory: StoreFactory) throws {
        let s = try factory.open()
        #expect(s.write([.enqueuePush(Self.pushJob(due: 10)), .enqueuePush(Self.pushJob(due: 20)), .enqueuePush(Self.pushJob(due: 30)),
                         .enqueuePush(Self.pushJob(due: 5_000))]) == [nil])
        func claim(_ node: String, at now: Int64, limit: Int = 10) throws -> [Int64] {
            try s.store.claimPushJobs(claimant: node, now: now, leaseMs: 1_000, limit: limit).map(\.id)
        }
        #expect(try claim("a", at: 100, limit: 2) == [1, 2])
        #expect(try claim("b", at: 100) == [3])               // not due yet: job 4
        #expect(try claim("a", at: 1_100).isEmpty)            // every lease runs until 1 100
        // Recording an outcome ends the claim: a retry is due again for anyone.
        #expect(s.write([.updatePushJob(id: 2, state: "pending", attempts: 1, nextAttemptAt: 1_050, lastError: "503", claimant: "a")]) == [nil])
        #expect(try claim("b", at: 1_100) == [2])
        // A claimant that died: its leases run out and another node takes the jobs over, oldest first.
        #expect(try claim("a", at: 1_101) == [1, 3])
        #expect(s.write([.updatePushJob(id: 1, state: "sent", attempts: 1, nextAttemptAt: 1_200, lastError: nil, claimant: "a")]) == [nil])
        #expect(try claim("b", at: 10_000) == [3, 2, 4])     // by next attempt; a sent job is never claimed again
        #expect(try s.store.pushJob(id: 1)?.state == "sent")
    }

    @Test(arguments: StoreFactory.all)
    func aUsersBackendWebhooksAreClaimedOneAtATimeInTheOrderTheyWereCommitted(factory: StoreFactory) throws {
        let s = try factory.open()
        func backend(_ user: String, due: Int64) -> StoreWrite {
            .enqueuePush(PushJobRecord(id: 0, userId: user, deviceId: "", target: PushTarget(provider: "backend", token: "", kind: "presence"),
                                       notice: PushNotice(type: "user_online", genericTitle: ""), nextAttemptAt: due, createdAt: due))
        }
        // 1 and 3 are u1's webhooks, 2 is u2's, 4 is an ordinary push to u1's device.
        #expect(s.write([backend("u1", due: 10), backend("u2", due: 10), backend("u1", due: 10), .enqueuePush(Self.pushJob(due: 10))]) == [nil])
        func claim(_ node: String, at now: Int64) throws -> [Int64] {
            try s.store.claimPushJobs(claimant: node, now: now, leaseMs: 1_000, limit: 10).map(\.id)
        }
        #expect(try claim("a", at: 100) == [1, 2, 4])       // 3 waits for 1, which is being sent
        #expect(try claim("b", at: 100).isEmpty)
        // 1 fails and backs off: 3 still waits, however due it is (it must not overtake).
        #expect(s.write([.updatePushJob(id: 1, state: "pending", attempts: 1, nextAttemptAt: 500, lastError: "503", claimant: "a")]) == [nil])
        #expect(try claim("b", at: 200).isEmpty)
        #expect(try claim("b", at: 500) == [1])
        #expect(s.write([.updatePushJob(id: 1, state: "sent", attempts: 2, nextAttemptAt: 500, lastError: nil, claimant: "b")]) == [nil])
        #expect(try claim("a", at: 600) == [3])
        // A dead letter does not hold its user's later webhooks back.
        #expect(s.write([backend("u2", due: 700)]) == [nil])
        #expect(s.write([.updatePushJob(id: 2, state: "dead", attempts: 1, nextAttemptAt: 600, lastError: "410", claimant: "a")]) == [nil])
        #expect(try claim("a", at: 700) == [5])
    }

    @Test(arguments: StoreFactory.all)
    func onlyTheNodeHoldingAPushJobsClaimRecordsItsOutcome(factory: StoreFactory) throws {
        let s = try factory.open()
        #expect(s.write([.enqueuePush(Self.pushJob(due: 10)), .enqueuePush(Self.pushJob(due: 20))]) == [nil])
        func claim(_ node: String, at now: Int64) throws -> [Int64] {
            try s.store.claimPushJobs(claimant: node, now: now, leaseMs: 1_000, limit: 10).map(\.id)
        }
        func record(_ id: Int64, _ state: String, attempts: Int, error: String? = nil, by node: String?) -> [StoreConflict?] {
            s.write([.updatePushJob(id: id, state: state, attempts: attempts, nextAttemptAt: 5_000, lastError: error, claimant: node)])
        }
        #expect(try claim("a", at: 100) == [1, 2])
        // A's sends outlast its lease; B takes both jobs over.
        #expect(try claim("b", at: 1_101) == [1, 2])
        // A's late outcome for job 1 changes nothing while B holds the claim...
        #expect(record(1, "dead", attempts: 1, error: "timed out", by: "a") == [nil])
        var job = try #require(try s.store.pushJob(id: 1))
        #expect((job.state, job.attempts, job.lastError) == ("pending", 0, nil))
        #expect(try claim("c", at: 1_200).isEmpty)          // ...and does not end B's claim
        // ...nor after B recorded its own, nor does a job nobody holds take an outcome from a former claimant.
        #expect(record(1, "sent", attempts: 1, by: "b") == [nil])
        #expect(record(1, "pending", attempts: 1, error: "503", by: "a") == [nil])
        job = try #require(try s.store.pushJob(id: 1))
        #expect((job.state, job.attempts, job.lastError) == ("sent", 1, nil))
        // The holder records however late: its lease ran out at 2 101, and nobody took the job over.
        #expect(record(2, "pending", attempts: 1, error: "503", by: "b") == [nil])
        #expect(try claim("b", at: 5_000) == [2])
        #expect(record(2, "sent", attempts: 2, by: "b") == [nil])
        #expect(try s.store.pushJob(id: 2)?.state == "sent")
    }
}

