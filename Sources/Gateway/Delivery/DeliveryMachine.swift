/// The acknowledgement deadline of one user's pushable events, as a pure state machine (docs/PUSH.md, "Delivery to
/// the person"): an event counts as delivered to a device only when that device acknowledges it (`ack` of its offset
/// or a later one); a device that has not within the delay gets a push, whether or not its socket looks open.
///
/// `(state, input, now) → (state, [Action])`: no clock, timers, store or sockets. The coordinator feeds the inputs
/// (commits, acks, `app_state`, connects, its one timer per user) and carries out the actions (arm or cancel that
/// timer, push). Per device:
/// - foreground with a socket on this node (or possibly on another node): wait; an ack in time settles the event for
///   that device, the deadline pushes it;
/// - `background`, or no socket anywhere: unreachable at once — pushed at commit, without waiting;
/// - going `background` or losing its last socket while events wait: those events are pushed at once;
/// - `foreground` (or a new socket) restores waiting for events committed after it.
///
/// Bounded: at most `Settings.maxPendingPerUser` events wait per user; one more pushes the oldest waiting one at once
/// (early rather than never). The user's devices are bounded by the devices it may have. One timer per user, armed at
/// the earliest deadline; it is not moved later when entries settle (it fires, finds nothing due and re-arms), so an
/// ack never touches the timer heap.
struct DeliveryMachine {
    struct Settings: Equatable {
        /// `gateway.push_ack_delay_ms`; 0: connected foreground devices are never pushed (no deadline).
        var ackDelayMs: Int64 = 5_000
        /// `gateway.approval_push_delay_ms` (defaults to `ackDelayMs`); 0 as above, for approval requests.
        var approvalDelayMs: Int64 = 5_000
        var maxPendingPerUser = 256

        func delay(_ kind: Kind) -> Int64 {
            switch kind {
            case .standard: ackDelayMs
            case .approval: approvalDelayMs
            }
        }
    }

    /// Which delay an event waits (approvals keep their own setting).
    enum Kind: Equatable, Sendable {
        case standard, approval
    }

    /// What the app said of itself (`app_state`); a new socket starts in `foreground`.
    enum AppState: String, Equatable, Sendable {
        case foreground, background
    }

    /// A device of the user as the machine knows it: only devices with a socket on this node have one.
    struct DeviceState: Equatable {
        var appState: AppState = .foreground
        /// The highest offset it acknowledged (from the store when it connected, then its acks).
        var ackedOffset: Int64 = 0
    }

    /// One event waiting for acknowledgements.
    struct Pending: Equatable {
        var offset: Int64
        var kind: Kind
        var deadline: Int64
        /// The devices that have neither acknowledged it nor been pushed it, in device-id order.
        var awaiting: [String]
    }

    /// An acknowledgement deadline read back after a restart (the durable copy the coordinator keeps; see
    /// docs/PUSH.md, "Delivery to the person").
    struct RestoredDeadline: Equatable {
        var offset: Int64
        var kind: Kind
        var deadline: Int64
        var devices: [String]
    }

    struct State: Equatable {
        /// Devices with a socket on this node, by device id.
        var devices: [String: DeviceState] = [:]
        /// In offset order.
        var pending: [Pending] = []
        /// When the user's timer is armed to fire; nil when none is.
        var armedAt: Int64?

        /// Nothing waits and no device is here: the coordinator may drop the state.
        var isIdle: Bool { devices.isEmpty && pending.isEmpty && armedAt == nil }
    }

    enum Input: Equatable {
        /// A pushable event was committed at `offset`. `devices`: the user's devices that have somewhere to push to
        /// (a token), in any order. `elsewhere`: devices of the user are connected to other nodes, so a device not
        /// connected here may still read and acknowledge it there (it waits rather than being pushed at once).
        case eventCommitted(offset: Int64, kind: Kind, devices: [String], elsewhere: Bool)
        /// `device` acknowledged every event up to `upTo` (here, or on another node through the store or bus).
        case acknowledged(device: String, upTo: Int64)
        /// `app_state` from a device connected here.
        case appStateChanged(device: String, AppState)
        /// The device's first socket on this node opened; `ackedOffset`: its acknowledgement as stored.
        case deviceConnected(device: String, ackedOffset: Int64)
        /// The device's last socket on this node closed.
        case deviceDisconnected(device: String)
        /// The event at `offset` no longer needs a push (an approval answered or timed out before its deadline).
        case withdrawn(offset: Int64)
        /// The user's timer fired.
        case deadlineFired
        /// Deadlines that were waiting when the node stopped; past ones are pushed at once.
        case restored([RestoredDeadline])
    }

    /// Why a push goes out (for metrics and the push's latency histogram).
    enum Reason: Equatable, Sendable {
        /// The device had no socket, or was in background, when the event was committed.
        case unreachable
        /// The device went to background or lost its socket while the event waited.
        case becameUnreachable
        /// No acknowledgement within the delay.
        case deadline
        /// More than `maxPendingPerUser` events waited: the oldest goes out early.
        case overflow
    }

    enum Action: Equatable {
        /// (Re)arm the user's one timer to feed `deadlineFired` at `at`, replacing any armed one.
        case armDeadline(at: Int64)
        case cancelDeadline
        /// Push the event at `offset` to these devices (device-id order) now.
        case push(offset: Int64, kind: Kind, devices: [String], reason: Reason)
    }

    let settings: Settings

    /// The transition: the user's state after `input` at `now`, and what the coordinator must do, in order.
    func transition(_ state: State, _ input: Input, now: Int64) -> (State, [Action]) {
        var next = state
        var actions: [Action] = []
        switch input {
        case .eventCommitted(let offset, let kind, let devices, let elsewhere):
            var waiting: [String] = [], unreachable: [String] = []
            for device in Set(devices).sorted() {
                if let here = next.devices[device] {
                    guard here.ackedOffset < offset else { continue }
                    if here.appState == .background { unreachable.append(device) } else { waiting.append(device) }
                } else if elsewhere {
                    waiting.append(device)
                } else {
                    unreachable.append(device)
                }
            }
            if !unreachable.isEmpty { actions.append(.push(offset: offset, kind: kind, devices: unreachable, reason: .unreachable)) }
            let delay = settings.delay(kind)
            if !waiting.isEmpty && delay > 0 {
                insert(Pending(offset: offset, kind: kind, deadline: now + delay, awaiting: waiting), into: &next, actions: &actions)
            }
        case .acknowledged(let device, let upTo):
            if next.devices[device] != nil { next.devices[device]!.ackedOffset = max(next.devices[device]!.ackedOffset, upTo) }
            for index in next.pending.indices where next.pending[index].offset <= upTo {
                next.pending[index].awaiting.removeAll { $0 == device }
            }
            next.pending.removeAll { $0.awaiting.isEmpty }
        case .appStateChanged(let device, let appState):
            guard next.devices[device] != nil else { return (state, []) }   // no socket here: nothing to say for it
            next.devices[device]!.appState = appState
            if appState == .background { actions += pushAll(awaitedBy: device, in: &next) }
        case .deviceConnected(let device, let ackedOffset):
            next.devices[device] = DeviceState(appState: .foreground, ackedOffset: ackedOffset)
            // What it acknowledged before (on another socket or node) needs no push.
            for index in next.pending.indices where next.pending[index].offset <= ackedOffset {
                next.pending[index].awaiting.removeAll { $0 == device }
            }
            next.pending.removeAll { $0.awaiting.isEmpty }
        case .deviceDisconnected(let device):
            guard next.devices.removeValue(forKey: device) != nil else { return (state, []) }
            actions += pushAll(awaitedBy: device, in: &next)
        case .withdrawn(let offset):
            next.pending.removeAll { $0.offset == offset }
        case .deadlineFired:
            next.armedAt = nil
            while let index = next.pending.firstIndex(where: { $0.deadline <= now }) {
                let due = next.pending.remove(at: index)
                actions.append(.push(offset: due.offset, kind: due.kind, devices: due.awaiting, reason: .deadline))
            }
        case .restored(let deadlines):
            for restored in deadlines.sorted(by: { $0.offset < $1.offset }) {
                let awaiting = Set(restored.devices).filter { device in
                    (next.devices[device]?.ackedOffset ?? 0) < restored.offset
                }.sorted()
                guard !awaiting.isEmpty, !next.pending.contains(where: { $0.offset == restored.offset }) else { continue }
                if restored.deadline <= now {
                    actions.append(.push(offset: restored.offset, kind: restored.kind, devices: awaiting, reason: .deadline))
                } else {
                    insert(Pending(offset: restored.offset, kind: restored.kind, deadline: restored.deadline, awaiting: awaiting),
                           into: &next, actions: &actions)
                }
            }
        }
        actions += timer(for: &next)
        return (next, actions)
    }

    /// Adds an entry in offset order; beyond the bound, the oldest waiting entry is pushed now.
    private func insert(_ entry: Pending, into state: inout State, actions: inout [Action]) {
        let index = state.pending.firstIndex { $0.offset > entry.offset } ?? state.pending.endIndex
        state.pending.insert(entry, at: index)
        while state.pending.count > settings.maxPendingPerUser {
            let oldest = state.pending.removeFirst()
            actions.append(.push(offset: oldest.offset, kind: oldest.kind, devices: oldest.awaiting, reason: .overflow))
        }
    }

    /// Every waiting event of `device`, pushed to it now, and the device taken off them.
    private func pushAll(awaitedBy device: String, in state: inout State) -> [Action] {
        var actions: [Action] = []
        for index in state.pending.indices where state.pending[index].awaiting.contains(device) {
            state.pending[index].awaiting.removeAll { $0 == device }
            let entry = state.pending[index]
            actions.append(.push(offset: entry.offset, kind: entry.kind, devices: [device], reason: .becameUnreachable))
        }
        state.pending.removeAll { $0.awaiting.isEmpty }
        return actions
    }

    /// The timer the entries need: armed at the earliest deadline when none is armed or the armed one is later;
    /// cancelled when nothing waits; left alone when it is earlier (it fires and re-arms).
    private func timer(for state: inout State) -> [Action] {
        guard let earliest = state.pending.lazy.map(\.deadline).min() else {
            guard state.armedAt != nil else { return [] }
            state.armedAt = nil
            return [.cancelDeadline]
        }
        if let armed = state.armedAt, armed <= earliest { return [] }
        state.armedAt = earliest
        return [.armDeadline(at: earliest)]
    }
}
