@testable import Gateway
import GatewayProtocol
import Testing

/// `ApprovalMachine` alone: every race is a sequence of inputs, no hub, clock or store.
@Suite struct ApprovalMachineTests {
    let pending = ApprovalRecord(id: "apr_1", userId: "u1", sessionId: "s1", toolName: "bash", summary: "ls",
                                 createdAt: 1_000, expiresAt: 61_000)
    let phone = DeviceRef(deviceId: "phone", clientType: "ios")
    let desk = DeviceRef(deviceId: "desk", clientType: "desktop")

    /// Runs the inputs in order, returning the final state and every action.
    func run(_ inputs: [(ApprovalMachine.Input, Int64)]) -> (ApprovalRecord, [[ApprovalMachine.Action]]) {
        var state = pending
        var all: [[ApprovalMachine.Action]] = []
        for (input, now) in inputs {
            let (next, actions) = ApprovalMachine.transition(state, input, now: now)
            state = next
            all.append(actions)
        }
        return (state, all)
    }

    @Test func anAnswerDecidesCancelsTheTimerAndCommitsTheDecision() {
        let (state, actions) = run([(.answer(approve: true, by: phone), 5_000)])
        #expect(state.state == .approved)
        #expect(state.decidedByDeviceId == "phone" && state.decidedByClientType == "ios" && state.resolvedAt == 5_000)
        #expect(actions[0] == [.cancelTimer, .commitDecision(state, .resolved)])
    }

    @Test func twoAnswersTheSecondIsRefusedWithTheFirstOutcome() {
        let (state, actions) = run([(.answer(approve: false, by: phone), 5_000), (.answer(approve: true, by: desk), 5_001)])
        #expect(state.state == .denied && state.decidedByDeviceId == "phone")
        #expect(actions[1] == [.refuse(.alreadyResolved(.denied))])
    }

    @Test func answerBeforeTheDeadlineWinsAndTheDeadlineThenDoesNothing() {
        let (state, actions) = run([(.answer(approve: true, by: phone), 60_999), (.deadline, 61_000)])
        #expect(state.state == .approved)
        #expect(actions[1] == [])
    }

    @Test func theDeadlineFirstTimesOutAndALaterAnswerIsExpired() {
        let (state, actions) = run([(.deadline, 61_000), (.answer(approve: true, by: phone), 61_001)])
        #expect(state.state == .timedOut && state.resolvedAt == 61_000 && state.decidedByDeviceId == nil)
        #expect(actions[0] == [.commitDecision(state, .timeout)])
        #expect(actions[1] == [.refuse(.expired)])
    }

    @Test func anAnswerAtTheDeadlineBeforeTheTimerRanIsExpiredAndDecidesNothing() {
        let (state, actions) = run([(.answer(approve: true, by: phone), 61_000)])
        #expect(state == pending)
        #expect(actions[0] == [.refuse(.expired)])
    }

    @Test func aTimeoutFiresOnce() {
        let (state, actions) = run([(.deadline, 61_000), (.deadline, 61_000), (.committed, 61_002), (.deadline, 61_003)])
        #expect(state.state == .timedOut)
        #expect(actions[1] == [] && actions[3] == [])
        #expect(actions[2] == [.finished(state)])
    }

    @Test func anotherNodeDecidedFirstTheStoreRowReplacesOursAndOurAnswerIsRefused() {
        var theirs = pending
        theirs.state = .approved
        theirs.decidedByDeviceId = "desk"
        theirs.decidedByClientType = "desktop"
        theirs.resolvedAt = 4_000
        let answer = ApprovalMachine.Input.answer(approve: false, by: phone)
        let (state, actions) = run([(answer, 5_000), (.storeDecided(theirs), 5_010), (answer, 5_010)])
        #expect(state == theirs)
        #expect(actions[1] == [.cancelTimer, .wakeWaiters(theirs)])   // the deciding node tells the webhook, not this one
        #expect(actions[2] == [.refuse(.alreadyResolved(.approved))])
    }

    @Test func anotherNodeTimedItOutFirstOurDeadlineCommitsNothingMore() {
        var theirs = pending
        theirs.state = .timedOut
        theirs.resolvedAt = 61_000
        let (state, actions) = run([(.deadline, 61_001), (.storeDecided(theirs), 61_005), (.deadline, 61_005)])
        #expect(state == theirs)
        #expect(actions[2] == [])
    }

    @Test func aDecisionForAnApprovalTheStoreDoesNotHaveIsNotFound() {
        let (_, actions) = run([(.answer(approve: true, by: phone), 5_000), (.storeDecided(nil), 5_001)])
        #expect(actions[1] == [.cancelTimer, .refuse(.notFound)])
    }

    @Test func statesKeepTheirDocumentedStrings() {
        #expect(ApprovalState.allCases.map(\.rawValue) == ["pending", "approved", "denied", "timed_out"])
        #expect(ApprovalMachine.Event.resolved.rawValue == "approval_resolved")
        #expect(ApprovalMachine.Event.timeout.rawValue == "approval_timeout")
        #expect(SessionState.allCases.map(\.rawValue) == ["active", "ended"])
        #expect(FriendRequestState.allCases.map(\.rawValue) == ["pending", "accepted", "rejected", "cancelled"])
        #expect(InviteState.allCases.map(\.rawValue) == ["pending", "used", "revoked"])
    }
}

/// `SessionMachine` alone: attach races between devices (and nodes) as inputs.
@Suite struct SessionMachineTests {
    let session = SessionRecord(id: "s1", userId: "u1", createdAt: 1_000)
    let phone = DeviceRef(deviceId: "phone", clientType: "ios")
    let desk = DeviceRef(deviceId: "desk", clientType: "desktop")

    @Test func theFirstDeviceTakesTheSessionWithoutAHandoff() {
        let (next, actions) = SessionMachine.transition(session, .activity(by: phone), now: 2_000)
        let active = ActiveClient(clientType: "ios", deviceId: "phone", lastActivityAt: 2_000)
        #expect(next.activeClient == active)
        #expect(actions == [.commitActiveClient(expected: nil, new: active)])
    }

    @Test func attachFromTwoDevicesTheSecondHandsOffTheFirst() {
        let (afterPhone, _) = SessionMachine.transition(session, .activity(by: phone), now: 2_000)
        let (afterDesk, actions) = SessionMachine.transition(afterPhone, .activity(by: desk), now: 2_001)
        #expect(afterDesk.activeClient?.deviceId == "desk")
        #expect(actions == [.commitActiveClient(expected: afterPhone.activeClient, new: afterDesk.activeClient!),
                            .handoff(SessionHandoffData(sessionId: "s1", handedOffTo: desk, previous: phone))])
    }

    @Test func theSameDeviceAgainOnlyRefreshesItsActivity() {
        let (first, _) = SessionMachine.transition(session, .activity(by: phone), now: 2_000)
        let (again, actions) = SessionMachine.transition(first, .activity(by: phone), now: 3_000)
        #expect(again.activeClient?.lastActivityAt == 3_000)
        #expect(actions == [.commitActiveClient(expected: first.activeClient, new: again.activeClient!)])
    }

    @Test func anotherNodeAttachedFirstTheRetryHandsOffTheStoresDevice() {
        // This node believes nobody is active; the store says the desk (attached on another node) is.
        var stored = session
        stored.activeClient = ActiveClient(clientType: "desktop", deviceId: "desk", lastActivityAt: 1_500)
        let (optimistic, _) = SessionMachine.transition(session, .activity(by: phone), now: 2_000)
        let (corrected, none) = SessionMachine.transition(optimistic, .storeChanged(stored), now: 2_010)
        #expect(corrected == stored && none == [])
        let (_, actions) = SessionMachine.transition(corrected, .activity(by: phone), now: 2_010)
        #expect(actions.contains(.handoff(SessionHandoffData(sessionId: "s1", handedOffTo: phone, previous: desk))))
        #expect(actions.first == .commitActiveClient(expected: stored.activeClient,
                                                     new: ActiveClient(clientType: "ios", deviceId: "phone", lastActivityAt: 2_010)))
    }

    @Test func endIsFinalAndActivityAfterItIsRefused() {
        let (ended, actions) = SessionMachine.transition(session, .end, now: 9_000)
        #expect(ended.state == .ended && ended.endedAt == 9_000)
        #expect(actions == [.commitEnd(ended)])
        #expect(SessionMachine.transition(ended, .end, now: 9_001) == (ended, []))
        #expect(SessionMachine.transition(ended, .activity(by: phone), now: 9_002).1 == [.refuseEnded])
    }
}
