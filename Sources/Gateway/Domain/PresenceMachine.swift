/// A user's presence as a pure state machine, fed the user's connected devices: `online` while any device is not
/// away, `away` while all are, and `offline` only after the last device has been gone for the grace period (so a
/// quick reconnect does not flicker). No threads, clock or sockets: the hub keeps the grace timer and broadcasts.
///
/// Presence is state, not history: nothing here is committed (see docs/ARCHITECTURE.md, "Decisions").
struct PresenceMachine {
    /// The documented wire strings.
    enum Status: String, Equatable {
        case online, away, offline
    }

    struct State: Equatable {
        var status: Status = .offline
        var lastSeenAt: Int64?
        /// The last device left and the grace timer runs.
        var leaving = false
    }

    enum Input: Equatable {
        /// The user's connected devices changed (one connected, left, or set itself away/back).
        case devices(connected: Int, away: Int)
        /// The grace timer fired; `connected` devices are there now.
        case graceOver(connected: Int)
    }

    enum Action: Equatable {
        case armGrace(at: Int64)
        case cancelGrace
        /// Tell the user's contacts (the status changed).
        case broadcast
    }

    let graceMs: Int64

    func transition(_ state: State, _ input: Input, now: Int64) -> (State, [Action]) {
        var next = state
        switch input {
        case .devices(connected: 0, _):
            guard state.status != .offline, !state.leaving else { return (state, []) }
            next.leaving = true
            return (next, [.armGrace(at: now + graceMs)])
        case .devices(let connected, let away):
            var actions: [Action] = state.leaving ? [.cancelGrace] : []
            next.leaving = false
            next.status = away < connected ? .online : .away
            next.lastSeenAt = now
            if next.status != state.status { actions.append(.broadcast) }
            return (next, actions)
        case .graceOver(let connected):
            guard connected == 0, state.leaving else { return (state, []) }
            next = State(status: .offline, lastSeenAt: now, leaving: false)
            return (next, [.broadcast])
        }
    }
}
