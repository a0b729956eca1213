@testable import Gateway
import GatewayProtocol
import Testing

/// `ContactPauseMachine` alone: each side's pause, idempotence, and presence coming back only when nothing pauses.
@Suite struct ContactPauseMachineTests {
    let pause = ContactPauseMachine.Input.pause(by: "ann", contact: "bob")
    let annPause = ContactPauseRecord(userId: "ann", contactId: "bob", pausedAt: 1_000)

    @Test func pausingCommitsTheRowAndPausingAgainDoesNothing() {
        let (paused, actions) = ContactPauseMachine.transition(.init(byMe: nil, byThem: false), pause, isContact: true, now: 1_000)
        #expect(paused == .init(byMe: annPause, byThem: false) && paused.paused)
        #expect(actions == [.commitPause(annPause, .paused, paused: true)])
        #expect(ContactPauseMachine.transition(paused, pause, isContact: true, now: 2_000) == (paused, []))
    }

    @Test func resumingLiftsOnlyTheActorsPause() {
        let (alone, actions) = ContactPauseMachine.transition(.init(byMe: annPause, byThem: false), .resume, isContact: true, now: 2_000)
        #expect(!alone.paused && actions == [.commitResume(.resumed, paused: false), .exchangePresence])
        // The other side's pause stands: still paused, presence stays off.
        let (stillPaused, both) = ContactPauseMachine.transition(.init(byMe: annPause, byThem: true), .resume, isContact: true, now: 2_000)
        #expect(stillPaused.paused && both == [.commitResume(.resumed, paused: true)])
        // Nothing of the actor's to resume.
        let theirs = ContactPauseMachine.State(byMe: nil, byThem: true)
        #expect(ContactPauseMachine.transition(theirs, .resume, isContact: true, now: 2_000) == (theirs, []))
        #expect(ContactPauseMachine.Event.resumed.rawValue == "contact_resumed")
    }

    @Test func onlyContactsCanBePausedOrResumed() {
        for input in [pause, .resume] {
            #expect(ContactPauseMachine.transition(.init(byMe: nil, byThem: false), input, isContact: false, now: 1_000).1 == [.refuseNotAContact])
        }
    }
}
