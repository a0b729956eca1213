import GatewayProtocol

/// One session as a pure state machine: while `active`, a device acting in it becomes its active client (and the
/// previous device, if another, is handed off); `end` makes it `ended` for good. No threads, clock or store.
///
/// The active client is a decision other nodes race on (a phone on one node, a desktop attaching on another): the
/// coordinator commits it as a compare-and-set on the previous active client, and when the store reports another
/// one (`storeChanged`), replaces its state with the store's and runs the input again, so the handoff names the
/// device the store really had.
struct SessionMachine {
    enum Input: Equatable {
        /// A device attached, or acted in the session (answered an approval).
        case activity(by: DeviceRef)
        /// The backend ended the session.
        case end
        /// The store refused this node's compare-and-set; its current session (nil: there is none).
        case storeChanged(SessionRecord?)
    }

    enum Action: Equatable {
        /// Commit `StoreWrite.setSessionActiveClient(expected:new:)` (with a handoff event, if any, in the same batch).
        case commitActiveClient(expected: ActiveClient?, new: ActiveClient)
        /// Append `session_handoff` to the user's log: the previous device must let go.
        case handoff(SessionHandoffData)
        /// Commit the ended session with `session_ended`.
        case commitEnd(SessionRecord)
        /// The session has ended: activity is refused (`session_ended`).
        case refuseEnded
    }

    static func transition(_ session: SessionRecord, _ input: Input, now: Int64) -> (SessionRecord, [Action]) {
        switch (session.state, input) {
        case (.active, .activity(let device)):
            var next = session
            let previous = session.activeClient
            next.activeClient = ActiveClient(clientType: device.clientType, deviceId: device.deviceId, lastActivityAt: now)
            var actions: [Action] = [.commitActiveClient(expected: previous, new: next.activeClient!)]
            if let previous, previous.deviceId != device.deviceId {
                actions.append(.handoff(SessionHandoffData(sessionId: session.id, handedOffTo: device,
                                                           previous: DeviceRef(deviceId: previous.deviceId, clientType: previous.clientType))))
            }
            return (next, actions)
        case (.ended, .activity):
            return (session, [.refuseEnded])
        case (.active, .end):
            var ended = session
            ended.state = .ended
            ended.endedAt = now
            return (ended, [.commitEnd(ended)])
        case (.ended, .end):
            return (session, [])
        case (_, .storeChanged(let current)):
            return (current ?? session, [])
        }
    }
}
