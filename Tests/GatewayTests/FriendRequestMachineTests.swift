@testable import Gateway
import GatewayProtocol
import Testing

/// `FriendRequestMachine` alone: sending, answering and the pair becoming contacts, as inputs in some order.
@Suite struct FriendRequestMachineTests {
    let request = FriendRequestRecord(id: "frq_1", fromUserId: "ann", toUserId: "bob", createdAt: 1_000)

    func send(_ pair: FriendRequestMachine.Pair, from sender: String = "ann") -> Result<FriendRequestMachine.Send, FriendRequestMachine.Refusal> {
        FriendRequestMachine.send(from: sender, hexCode: "B0B0B0B0", pair: pair, id: "frq_2", now: 5_000)
    }

    @Test func sendingChecksTheRulesInOrderAndCreatesAPendingRequest() {
        #expect(send(.init(target: nil)) == .failure(.userNotFound(hexCode: "B0B0B0B0")))
        #expect(send(.init(target: "ann", areContacts: true)) == .failure(.selfRequest))
        #expect(send(.init(target: "bob", areContacts: true, outgoingPending: true)) == .failure(.alreadyFriends))
        #expect(send(.init(target: "bob", outgoingPending: true, incomingPending: "frq_1")) == .failure(.requestAlreadySent))
        #expect(send(.init(target: "bob")) == .success(.create(FriendRequestRecord(id: "frq_2", fromUserId: "ann", toUserId: "bob",
                                                                                     state: .pending, createdAt: 5_000))))
    }

    @Test func aRequestTheOtherSideAlreadySentIsAcceptedInstead() {
        #expect(send(.init(target: "bob", incomingPending: "frq_1")) == .success(.acceptIncoming(requestId: "frq_1")))
    }

    @Test func theRecipientAcceptsByMakingContactsWhichResolvesTheRequest() {
        let (same, actions) = FriendRequestMachine.transition(request, .answer(.accept, by: "bob"), now: 2_000)
        #expect(same == request && actions == [.makeContacts("ann", "bob")])
        let (accepted, resolved) = FriendRequestMachine.transition(request, .becameContacts, now: 2_000)
        #expect(accepted.state == .accepted && accepted.resolvedAt == 2_000)
        #expect(resolved == [.commitResolution(accepted, .accepted)])
        // Contacts made again (a connect code later): the resolved request stays as it is.
        #expect(FriendRequestMachine.transition(accepted, .becameContacts, now: 3_000) == (accepted, []))
    }

    @Test func theRecipientRejectsAndTheSenderCancelsEachOnlyTheirOwnSide() {
        let (rejected, rejectActions) = FriendRequestMachine.transition(request, .answer(.reject, by: "bob"), now: 2_000)
        #expect(rejected.state == .rejected && rejectActions == [.commitResolution(rejected, .rejected)])
        #expect(FriendRequestMachine.Event.rejected.rawValue == "friend_request_rejected")
        let (cancelled, cancelActions) = FriendRequestMachine.transition(request, .answer(.cancel, by: "ann"), now: 2_000)
        #expect(cancelled.state == .cancelled && cancelled.resolvedAt == 2_000 && cancelActions == [.commitResolution(cancelled, .cancelled)])
        // The wrong side (or a stranger) is told there is no such request, whatever its state.
        for (answer, user) in [(FriendRequestMachine.Answer.accept, "ann"), (.reject, "ann"), (.cancel, "bob"), (.accept, "eve")] {
            #expect(FriendRequestMachine.transition(request, .answer(answer, by: user), now: 2_000).1 == [.refuse(.notFound(requestId: "frq_1", answer))])
        }
    }

    @Test func nothingHappensAfterAResolution() {
        let (rejected, _) = FriendRequestMachine.transition(request, .answer(.reject, by: "bob"), now: 2_000)
        #expect(FriendRequestMachine.transition(rejected, .answer(.accept, by: "bob"), now: 3_000).1
                == [.refuse(.alreadyResolved(requestId: "frq_1", .rejected))])
        #expect(FriendRequestMachine.transition(rejected, .answer(.cancel, by: "ann"), now: 3_000).1
                == [.refuse(.alreadyResolved(requestId: "frq_1", .rejected))])
        #expect(FriendRequestMachine.transition(rejected, .becameContacts, now: 3_000) == (rejected, []))
    }

    @Test func refusalsKeepTheirWireCodes() {
        #expect(GatewayError(FriendRequestMachine.Refusal.alreadyResolved(requestId: "frq_1", .cancelled)).code == .requestAlreadyResolved)
        #expect(GatewayError(FriendRequestMachine.Refusal.notFound(requestId: "frq_1", .cancel)).code == .requestNotFound)
        #expect(GatewayError(FriendRequestMachine.Refusal.selfRequest).code == .selfRequest)
    }

    /// Another node answered first: the store's row replaces this one, and the answer decided again on it is refused.
    @Test func theStoresRowAfterALostAnswerRefusesTheAnswerAsResolved() {
        var cancelled = request
        cancelled.state = .cancelled
        cancelled.resolvedAt = 2_000
        let (taken, actions) = FriendRequestMachine.transition(request, .storeDecided(cancelled), now: 3_000)
        #expect(taken == cancelled && actions.isEmpty)
        #expect(FriendRequestMachine.transition(taken, .answer(.accept, by: "bob"), now: 3_000).1
                == [.refuse(.alreadyResolved(requestId: "frq_1", .cancelled))])
        #expect(FriendRequestMachine.transition(taken, .becameContacts, now: 3_000).1.isEmpty)
    }

    /// Another node stored a pending request between the pair first: the send decided again on it is refused when it
    /// is the sender's own, or accepts it when it is the target's.
    @Test func aSendDecidedAgainOnTheStoresPendingRequest() {
        let mine = FriendRequestRecord(id: "frq_2", fromUserId: "ann", toUserId: "bob", createdAt: 5_000)
        let (same, _) = FriendRequestMachine.transition(mine, .storeDecided(request), now: 5_000)
        #expect(same == request)
        #expect(send(.init(target: "bob", outgoingPending: same.fromUserId == "ann")) == .failure(.requestAlreadySent))
        let reverse = FriendRequestRecord(id: "frq_3", fromUserId: "bob", toUserId: "ann", createdAt: 4_000)
        let (theirs, _) = FriendRequestMachine.transition(mine, .storeDecided(reverse), now: 5_000)
        #expect(send(.init(target: "bob", incomingPending: theirs.id)) == .success(.acceptIncoming(requestId: "frq_3")))
    }
}
