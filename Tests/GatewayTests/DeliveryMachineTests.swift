@testable import Gateway
import Testing

/// `DeliveryMachine` on a hand-moved clock: the driver below plays the coordinator (one timer per user, fired when
/// the clock passes it) and records every push with the time it went out. No hub, store or sockets.
@Suite struct DeliveryMachineTests {
    struct Pushed: Equatable {
        var at: Int64
        var offset: Int64
        var devices: [String]
        var reason: DeliveryMachine.Reason
    }

    /// The coordinator's side: feeds inputs at the clock's time, keeps the armed timer, fires it on `advance`.
    struct Driver {
        var machine = DeliveryMachine(settings: .init(ackDelayMs: 5_000, approvalDelayMs: 8_000, maxPendingPerUser: 4))
        var state = DeliveryMachine.State()
        var now: Int64 = 1_000_000
        var timer: Int64?
        var pushed: [Pushed] = []
        var timerOperations = 0

        init(settings: DeliveryMachine.Settings? = nil) {
            if let settings { machine = DeliveryMachine(settings: settings) }
        }

        mutating func feed(_ input: DeliveryMachine.Input) {
            let (next, actions) = machine.transition(state, input, now: now)
            state = next
            for action in actions {
                switch action {
                case .armDeadline(let at): timer = at; timerOperations += 1
                case .cancelDeadline: timer = nil; timerOperations += 1
                case .push(let offset, _, let devices, let reason): pushed.append(Pushed(at: now, offset: offset, devices: devices, reason: reason))
                }
            }
            #expect(state.armedAt == timer, "the machine's idea of the timer and the coordinator's differ")
        }

        /// Moves the clock, firing the timer each time it is due (it may re-arm).
        mutating func advance(by milliseconds: Int64) {
            let target = now + milliseconds
            while let at = timer, at <= target {
                now = max(now, at)
                timer = nil
                feed(.deadlineFired)
            }
            now = target
        }

        mutating func connect(_ devices: String..., acked: Int64 = 0) {
            for device in devices { feed(.deviceConnected(device: device, ackedOffset: acked)) }
        }

        mutating func commit(_ offset: Int64, to devices: [String], kind: DeliveryMachine.Kind = .standard, elsewhere: Bool = false) {
            feed(.eventCommitted(offset: offset, kind: kind, devices: devices, elsewhere: elsewhere))
        }
    }

    @Test func anEventAcknowledgedBeforeTheDeadlineIsNeverPushed() {
        var d = Driver()
        d.connect("phone")
        d.commit(1, to: ["phone"])
        #expect(d.timer == 1_005_000)
        d.advance(by: 4_999)
        d.feed(.acknowledged(device: "phone", upTo: 1))
        #expect(d.timer == nil)
        d.advance(by: 60_000)
        #expect(d.pushed.isEmpty)
        #expect(d.state.pending.isEmpty)
    }

    @Test func anEventNotAcknowledgedIsPushedAtTheDeadlineExactly() {
        var d = Driver()
        d.connect("phone")
        d.commit(1, to: ["phone"])
        d.advance(by: 4_999)
        #expect(d.pushed.isEmpty)
        d.advance(by: 1)
        #expect(d.pushed == [Pushed(at: 1_005_000, offset: 1, devices: ["phone"], reason: .deadline)])
        // An ack after the push changes nothing: pushed once.
        d.feed(.acknowledged(device: "phone", upTo: 1))
        d.advance(by: 60_000)
        #expect(d.pushed.count == 1)
        #expect(d.timer == nil)
    }

    @Test func aLaterOffsetAcknowledgesEveryEarlierEvent() {
        var d = Driver()
        d.connect("phone")
        d.commit(1, to: ["phone"])
        d.advance(by: 1_000)
        d.commit(2, to: ["phone"])
        d.feed(.acknowledged(device: "phone", upTo: 2))
        d.advance(by: 10_000)
        #expect(d.pushed.isEmpty)
    }

    @Test func anAcknowledgementOfAnEarlierOffsetLeavesTheLaterEventWaiting() {
        var d = Driver()
        d.connect("phone")
        d.commit(1, to: ["phone"])
        d.advance(by: 1_000)
        d.commit(2, to: ["phone"])
        d.feed(.acknowledged(device: "phone", upTo: 1))
        // The timer stays where it was (armed for offset 1): it fires early, finds nothing due and re-arms.
        #expect(d.timer == 1_005_000)
        d.advance(by: 4_000)
        #expect(d.pushed.isEmpty)
        #expect(d.timer == 1_006_000)
        d.advance(by: 1_000)
        #expect(d.pushed == [Pushed(at: 1_006_000, offset: 2, devices: ["phone"], reason: .deadline)])
    }

    @Test func eachDeviceIsPushedOnlyWhatItDidNotAcknowledge() {
        var d = Driver()
        d.connect("laptop", "phone", "tablet")
        d.commit(7, to: ["tablet", "phone", "laptop"])
        d.advance(by: 2_000)
        d.feed(.acknowledged(device: "laptop", upTo: 7))
        d.advance(by: 2_000)
        d.feed(.acknowledged(device: "tablet", upTo: 7))
        d.advance(by: 1_000)
        #expect(d.pushed == [Pushed(at: 1_005_000, offset: 7, devices: ["phone"], reason: .deadline)])
    }

    @Test func devicesWithoutASocketArePushedAtOnceAndTheOthersWait() {
        var d = Driver()
        d.connect("phone")
        d.commit(3, to: ["phone", "watch"])
        #expect(d.pushed == [Pushed(at: 1_000_000, offset: 3, devices: ["watch"], reason: .unreachable)])
        d.advance(by: 5_000)
        #expect(d.pushed.last == Pushed(at: 1_005_000, offset: 3, devices: ["phone"], reason: .deadline))
    }

    @Test func aUserWithNoSocketIsPushedAtOnceAndNothingWaits() {
        var d = Driver()
        d.commit(1, to: ["phone", "tablet"])
        #expect(d.pushed == [Pushed(at: 1_000_000, offset: 1, devices: ["phone", "tablet"], reason: .unreachable)])
        #expect(d.timer == nil)
        #expect(d.state.isIdle)
    }

    @Test func devicesThatMayBeConnectedToAnotherNodeWaitForTheirAcknowledgement() {
        var d = Driver()
        d.commit(1, to: ["phone"], elsewhere: true)
        #expect(d.pushed.isEmpty)
        // Its ack arrives from the other node (through the store or the bus) in time.
        d.feed(.acknowledged(device: "phone", upTo: 1))
        d.commit(2, to: ["phone"], elsewhere: true)
        d.advance(by: 5_000)
        #expect(d.pushed == [Pushed(at: 1_005_000, offset: 2, devices: ["phone"], reason: .deadline)])
    }

    @Test func aBackgroundDeviceIsPushedAtOnceAndForegroundRestoresWaiting() {
        var d = Driver()
        d.connect("phone")
        d.feed(.appStateChanged(device: "phone", .background))
        d.commit(1, to: ["phone"])
        #expect(d.pushed == [Pushed(at: 1_000_000, offset: 1, devices: ["phone"], reason: .unreachable)])
        #expect(d.timer == nil)
        d.advance(by: 500)
        d.feed(.appStateChanged(device: "phone", .foreground))
        d.commit(2, to: ["phone"])
        #expect(d.pushed.count == 1)
        d.feed(.acknowledged(device: "phone", upTo: 2))
        d.advance(by: 10_000)
        #expect(d.pushed.count == 1)
    }

    @Test func goingToBackgroundPushesWhatWaitsForThatDeviceOnly() {
        var d = Driver()
        d.connect("phone", "tablet")
        d.commit(1, to: ["phone", "tablet"])
        d.advance(by: 1_000)
        d.commit(2, to: ["phone", "tablet"])
        d.advance(by: 1_000)
        d.feed(.appStateChanged(device: "phone", .background))
        #expect(d.pushed == [Pushed(at: 1_002_000, offset: 1, devices: ["phone"], reason: .becameUnreachable),
                             Pushed(at: 1_002_000, offset: 2, devices: ["phone"], reason: .becameUnreachable)])
        // Flipping back and forth pushes nothing twice; the tablet still waits for its own deadlines.
        d.feed(.appStateChanged(device: "phone", .foreground))
        d.feed(.appStateChanged(device: "phone", .background))
        #expect(d.pushed.count == 2)
        d.advance(by: 4_000)
        #expect(d.pushed.suffix(2) == [Pushed(at: 1_005_000, offset: 1, devices: ["tablet"], reason: .deadline),
                                       Pushed(at: 1_006_000, offset: 2, devices: ["tablet"], reason: .deadline)])
    }

    @Test func backgroundThenForegroundBeforeTheNextEventWaitsAgain() {
        var d = Driver()
        d.connect("phone")
        d.feed(.appStateChanged(device: "phone", .background))
        d.feed(.appStateChanged(device: "phone", .foreground))
        d.commit(1, to: ["phone"])
        #expect(d.pushed.isEmpty)
        #expect(d.timer == 1_005_000)
    }

    @Test func appStateOfADeviceWithoutASocketHereIsIgnored() {
        var d = Driver()
        d.feed(.appStateChanged(device: "ghost", .background))
        #expect(d.state == DeliveryMachine.State())
    }

    @Test func losingTheLastSocketPushesWhatWaitsAtOnce() {
        var d = Driver()
        d.connect("phone")
        d.commit(1, to: ["phone"])
        d.advance(by: 1_500)
        d.feed(.deviceDisconnected(device: "phone"))
        #expect(d.pushed == [Pushed(at: 1_001_500, offset: 1, devices: ["phone"], reason: .becameUnreachable)])
        #expect(d.timer == nil)
        #expect(d.state.isIdle)
        // Back with a socket: new events wait again, and a new socket starts in foreground.
        d.connect("phone", acked: 1)
        d.commit(2, to: ["phone"])
        #expect(d.pushed.count == 1)
        #expect(d.timer == 1_006_500)
    }

    @Test func aReconnectingDeviceWhoseStoredAckCoversAnEventIsNotPushedIt() {
        var d = Driver()
        d.commit(1, to: ["phone"], elsewhere: true)
        // It acknowledged on another node, then its socket moved here; the stored ack comes with the connect.
        d.connect("phone", acked: 1)
        d.advance(by: 10_000)
        #expect(d.pushed.isEmpty)
    }

    @Test func approvalsWaitTheirOwnDelay() {
        var d = Driver()
        d.connect("phone")
        d.commit(1, to: ["phone"], kind: .approval)
        d.commit(2, to: ["phone"])
        #expect(d.timer == 1_005_000)
        d.advance(by: 5_000)
        #expect(d.pushed == [Pushed(at: 1_005_000, offset: 2, devices: ["phone"], reason: .deadline)])
        #expect(d.timer == 1_008_000)
        d.advance(by: 3_000)
        #expect(d.pushed.last == Pushed(at: 1_008_000, offset: 1, devices: ["phone"], reason: .deadline))
    }

    @Test func aWithdrawnApprovalIsNotPushed() {
        var d = Driver()
        d.connect("phone")
        d.commit(1, to: ["phone"], kind: .approval)
        d.advance(by: 2_000)
        d.feed(.withdrawn(offset: 1))
        #expect(d.timer == nil)
        d.advance(by: 10_000)
        #expect(d.pushed.isEmpty)
    }

    @Test func aZeroDelayNeverPushesAConnectedForegroundDevice() {
        var d = Driver(settings: .init(ackDelayMs: 0, approvalDelayMs: 0, maxPendingPerUser: 4))
        d.connect("phone")
        d.commit(1, to: ["phone", "watch"])
        #expect(d.pushed == [Pushed(at: 1_000_000, offset: 1, devices: ["watch"], reason: .unreachable)])
        #expect(d.state.pending.isEmpty)
        #expect(d.timer == nil)
    }

    @Test func theWaitingEventsOfAUserAreBoundedAndTheOldestGoesOutEarly() {
        var d = Driver()
        d.connect("phone")
        for offset in 1...4 { d.commit(Int64(offset), to: ["phone"]) }
        #expect(d.pushed.isEmpty)
        d.commit(5, to: ["phone"])
        #expect(d.state.pending.count == 4)
        #expect(d.pushed == [Pushed(at: 1_000_000, offset: 1, devices: ["phone"], reason: .overflow)])
        #expect(d.state.pending.map(\.offset) == [2, 3, 4, 5])
    }

    @Test func acknowledgementsNeverMoveTheTimer() {
        var d = Driver(settings: .init(ackDelayMs: 5_000, approvalDelayMs: 5_000, maxPendingPerUser: 2_000))
        d.connect("phone", "tablet")
        for offset in 1...1_000 {
            d.commit(Int64(offset), to: ["phone", "tablet"])
            d.feed(.acknowledged(device: "phone", upTo: Int64(offset)))
        }
        // Armed once, at the first event; the phone's thousand acks and the later events left it alone.
        #expect(d.timerOperations == 1)
        #expect(d.state.pending.count == 1_000)
        #expect(d.state.pending.allSatisfy { $0.awaiting == ["tablet"] })
        d.feed(.acknowledged(device: "tablet", upTo: 1_000))
        #expect(d.timerOperations == 2)
        #expect(d.timer == nil)
        #expect(d.pushed.isEmpty)
    }

    @Test func deadlinesPendingAtARestartKeepTheirTimeAndPastOnesGoOutAtOnce() {
        var d = Driver()
        d.feed(.restored([
            .init(offset: 9, kind: .standard, deadline: 1_003_000, devices: ["phone", "tablet"]),
            .init(offset: 4, kind: .approval, deadline: 999_000, devices: ["phone"]),
        ]))
        #expect(d.pushed == [Pushed(at: 1_000_000, offset: 4, devices: ["phone"], reason: .deadline)])
        #expect(d.timer == 1_003_000)
        // The phone comes back and acknowledges in time; the tablet does not.
        d.connect("phone")
        d.feed(.acknowledged(device: "phone", upTo: 9))
        d.advance(by: 3_000)
        #expect(d.pushed.last == Pushed(at: 1_003_000, offset: 9, devices: ["tablet"], reason: .deadline))
        #expect(d.pushed.count == 2)
        #expect(d.state.pending.isEmpty && d.timer == nil)
    }

    @Test func aRestoredDeadlineAlreadyWaitingIsNotAddedTwice() {
        var d = Driver()
        d.connect("phone")
        d.commit(1, to: ["phone"])
        d.feed(.restored([.init(offset: 1, kind: .standard, deadline: 1_002_000, devices: ["phone"])]))
        #expect(d.state.pending.count == 1)
        d.advance(by: 5_000)
        #expect(d.pushed.count == 1)
    }

    @Test func aDuplicatedDeviceInTheCommitIsPushedOnce() {
        var d = Driver()
        d.commit(1, to: ["phone", "phone"])
        #expect(d.pushed == [Pushed(at: 1_000_000, offset: 1, devices: ["phone"], reason: .unreachable)])
    }
}
