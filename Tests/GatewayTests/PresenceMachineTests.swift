@testable import Gateway
import Testing

/// `PresenceMachine` alone: devices coming and going as inputs, the grace timer as an input too.
@Suite struct PresenceMachineTests {
    let machine = PresenceMachine(graceMs: 5_000)

    @Test func theFirstDeviceBringsTheUserOnlineAndContactsHearIt() {
        let (state, actions) = machine.transition(.init(), .devices(connected: 1, away: 0), now: 100)
        #expect(state == .init(status: .online, lastSeenAt: 100, leaving: false))
        #expect(actions == [.broadcast])
    }

    @Test func awayOnlyWhenEveryDeviceIsAway() {
        let online = PresenceMachine.State(status: .online, lastSeenAt: 100)
        #expect(machine.transition(online, .devices(connected: 2, away: 1), now: 200).0.status == .online)
        let (away, actions) = machine.transition(online, .devices(connected: 2, away: 2), now: 200)
        #expect(away.status == .away && actions == [.broadcast])
    }

    @Test func theLastDeviceLeavingWaitsOutTheGraceThenGoesOfflineOnce() {
        let online = PresenceMachine.State(status: .online, lastSeenAt: 100)
        let (leaving, arm) = machine.transition(online, .devices(connected: 0, away: 0), now: 1_000)
        #expect(leaving.status == .online && leaving.leaving && arm == [.armGrace(at: 6_000)])
        // A second "no devices" while leaving arms nothing more.
        #expect(machine.transition(leaving, .devices(connected: 0, away: 0), now: 1_001).1 == [])
        let (offline, actions) = machine.transition(leaving, .graceOver(connected: 0), now: 6_000)
        #expect(offline == .init(status: .offline, lastSeenAt: 6_000, leaving: false))
        #expect(actions == [.broadcast])
        #expect(machine.transition(offline, .graceOver(connected: 0), now: 6_001).1 == [])
    }

    @Test func aQuickReconnectCancelsTheGraceAndContactsHearNothing() {
        let online = PresenceMachine.State(status: .online, lastSeenAt: 100)
        let (leaving, _) = machine.transition(online, .devices(connected: 0, away: 0), now: 1_000)
        let (back, actions) = machine.transition(leaving, .devices(connected: 1, away: 0), now: 2_000)
        #expect(back == .init(status: .online, lastSeenAt: 2_000, leaving: false))
        #expect(actions == [.cancelGrace])
        // The timer racing the reconnect changes nothing.
        #expect(machine.transition(back, .graceOver(connected: 1), now: 6_000) == (back, []))
    }

    @Test func statusesKeepTheirWireStrings() {
        #expect([PresenceMachine.Status.online, .away, .offline].map(\.rawValue) == ["online", "away", "offline"])
    }
}
