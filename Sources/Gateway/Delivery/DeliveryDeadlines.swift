/// The acknowledgement deadlines of the users this node holds (docs/PUSH.md, "Delivery to the person"): each user's
/// `DeliveryMachine.State`, the one timer per user that feeds it `deadlineFired`, and the typed event each waiting
/// offset will be pushed as. The hub feeds the inputs (commits, acks, `app_state`, sockets opening and closing) and
/// turns the pushes this hands back into outbox jobs; nothing here commits, reads the store or knows a device's
/// tokens.
///
/// Bounded per user by `DeliveryMachine.Settings.maxPendingPerUser`; a user whose machine is idle (no socket here,
/// nothing waiting) holds nothing here.
///
/// `@unchecked Sendable`: confined to the hub thread; Sendable so hub tasks can carry it back there.
final class DeliveryDeadlines: @unchecked Sendable {
    /// One push the machine decided: the event at `offset` of `userId`'s log goes to `devices` now.
    struct Push {
        var userId: String
        var offset: Int64
        var devices: [String]
        var reason: DeliveryMachine.Reason
        var event: PushPolicy.Event
    }

    /// A committed event's push waiting for acknowledgements: what it is pushed as, and which delay it waits.
    struct Awaiting {
        var event: PushPolicy.Event
        var kind: DeliveryMachine.Kind
    }

    private let machine: DeliveryMachine
    private let scheduler: GatewayScheduler
    private let clock: GatewayClock
    private var states: [String: DeliveryMachine.State] = [:]
    /// What each waiting offset is pushed as, per user; kept exactly as long as the machine keeps the offset.
    private var events: [String: [Int64: PushPolicy.Event]] = [:]
    private var timers: [String: GatewayTimer] = [:]
    /// Receives the pushes a deadline produced (timers fire outside any hub call). Set by the hub at init.
    var onDeadline: (([Push]) -> Void)?

    init(settings: DeliveryMachine.Settings, scheduler: GatewayScheduler, clock: GatewayClock) {
        machine = DeliveryMachine(settings: settings)
        self.scheduler = scheduler
        self.clock = clock
    }

    /// A pushable event was committed at `offset`. `devices`: the user's devices with a push token; `elsewhere`:
    /// devices of the user have sockets on other nodes. Returns the pushes due at once (unreachable devices).
    func committed(_ awaiting: Awaiting, userId: String, offset: Int64, devices: [String], elsewhere: Bool) -> [Push] {
        events[userId, default: [:]][offset] = awaiting.event
        return step(
            userId, .eventCommitted(offset: offset, kind: awaiting.kind, devices: devices, elsewhere: elsewhere))
    }

    /// `device` acknowledged every event of `userId` up to `upTo`: those are never pushed to it.
    func acknowledged(userId: String, device: String, upTo: Int64) {
        guard states[userId] != nil else { return }
        _ = step(userId, .acknowledged(device: device, upTo: upTo))
    }

    /// `app_state` of a device with a socket here; going to background returns its waiting events' pushes.
    func appStateChanged(userId: String, device: String, _ appState: DeliveryMachine.AppState) -> [Push] {
        guard states[userId] != nil else { return [] }
        return step(userId, .appStateChanged(device: device, appState))
    }

    /// The device's first socket on this node opened; `ackedOffset`: what it acknowledged before (the store's value).
    func connected(userId: String, device: String, ackedOffset: Int64) {
        _ = step(userId, .deviceConnected(device: device, ackedOffset: ackedOffset))
    }

    /// The device's last socket on this node closed: its waiting events are pushed now.
    func disconnected(userId: String, device: String) -> [Push] {
        guard states[userId] != nil else { return [] }
        return step(userId, .deviceDisconnected(device: device))
    }

    /// The events of `userId` matching `isGone` need no push any more (an approval decided before its deadline).
    func withdraw(userId: String, where isGone: (PushPolicy.Event) -> Bool) {
        guard let held = events[userId] else { return }
        for (offset, event) in held where isGone(event) { _ = step(userId, .withdrawn(offset: offset)) }
    }

    /// Every waiting event, to be pushed now to the devices it waits for, and nothing held any more: the node is
    /// stopping, its sockets close with it, and a deadline kept only in memory would otherwise be lost.
    func takeAll() -> [Push] {
        var pushes: [Push] = []
        for (userId, state) in states.sorted(by: { $0.key < $1.key }) {
            for entry in state.pending {
                guard let event = events[userId]?[entry.offset] else { continue }
                pushes.append(
                    Push(
                        userId: userId, offset: entry.offset, devices: entry.awaiting, reason: .becameUnreachable,
                        event: event))
            }
        }
        for timer in timers.values { timer.cancel() }
        (states, events, timers) = ([:], [:], [:])
        return pushes
    }

    /// Drops everything of `userId` without pushing (the user was deleted).
    func forget(_ userId: String) {
        timers.removeValue(forKey: userId)?.cancel()
        states[userId] = nil
        events[userId] = nil
    }

    /// Whether anything of `userId` is held (a socket's state, a waiting event, a timer): the user is not idle.
    func holds(_ userId: String) -> Bool { states[userId] != nil || timers[userId] != nil }

    /// Events waiting for an acknowledgement, over all users (for tests and metrics).
    var waitingCount: Int { states.values.reduce(0) { $0 + $1.pending.count } }

    /// Feeds `input` to the user's machine, keeps its state, carries out its timer actions and returns its pushes.
    private func step(_ userId: String, _ input: DeliveryMachine.Input) -> [Push] {
        let (next, actions) = machine.transition(states[userId] ?? .init(), input, now: clock.now())
        var pushes: [Push] = []
        for action in actions {
            switch action {
            case .armDeadline(let at):
                timers[userId]?.cancel()
                timers[userId] = scheduler.schedule(at: at) { [self] in
                    timers[userId] = nil
                    let due = step(userId, .deadlineFired)
                    if !due.isEmpty { onDeadline?(due) }
                }
            case .cancelDeadline:
                timers.removeValue(forKey: userId)?.cancel()
            case .push(let offset, _, let devices, let reason):
                if let event = events[userId]?[offset], !devices.isEmpty {
                    pushes.append(Push(userId: userId, offset: offset, devices: devices, reason: reason, event: event))
                }
            }
        }
        adopt(next, of: userId)
        return pushes
    }

    /// Keeps the machine's state, and the events of only the offsets it still waits for.
    private func adopt(_ next: DeliveryMachine.State, of userId: String) {
        if next.isIdle {
            states[userId] = nil
            events[userId] = nil
            return
        }
        states[userId] = next
        guard let held = events[userId], held.count != next.pending.count else { return }
        let waiting = Set(next.pending.map(\.offset))
        events[userId] = held.filter { waiting.contains($0.key) }
    }
}
