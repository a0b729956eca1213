import GatewayProtocol

/// One approval request as a pure state machine: `pending --answer--> approved/denied`, `pending --deadline-->
/// timedOut`, and nothing after that. No threads, clock or store: the hub (the coordinator) feeds inputs with the
/// current time and carries out the returned actions — commit, then deliver; cancel the timer; refuse; tell waiters.
///
/// Races are inputs in some order: two answers (the second sees a decided state and is refused), an answer against
/// the deadline (whichever input comes first wins), an answer after the timeout (refused as expired), and a decision
/// another node made first (`storeDecided`: the store refused ours and reported its row, which replaces ours).
struct ApprovalMachine {
    enum Input: Equatable {
        /// A device answered.
        case answer(approve: Bool, by: DeviceRef)
        /// The approval's deadline timer fired.
        case deadline
        /// This node's decision is durable.
        case committed
        /// The store refused this node's decision because the approval was already decided (or is missing: nil).
        case storeDecided(ApprovalRecord?)
    }

    /// Why an answer is refused (mapped to the wire's error codes by `GatewayError(_:)`).
    enum Refusal: Equatable {
        case expired
        case alreadyResolved(ApprovalState)
        case notFound
    }

    /// The event a decision appends to the user's log.
    enum Event: String, Equatable {
        case resolved = "approval_resolved"
        case timeout = "approval_timeout"
    }

    enum Action: Equatable {
        /// Commit `StoreWrite.decideApproval(record)` with `event` in one batch; deliver the event after the commit.
        case commitDecision(ApprovalRecord, Event)
        case cancelTimer
        case refuse(Refusal)
        /// This node's decision is final: answer long-polling backends and tell the webhook observer.
        case finished(ApprovalRecord)
        /// Another node's decision is final: answer this node's long-polls (the deciding node tells the observer).
        case wakeWaiters(ApprovalRecord)
    }

    /// The transition: the approval after `input` at `now`, and what the coordinator must do.
    static func transition(_ approval: ApprovalRecord, _ input: Input, now: Int64) -> (ApprovalRecord, [Action]) {
        switch (approval.state, input) {
        case (.pending, .answer(let approve, let device)):
            // The deadline has passed but its timer has not run yet: the answer is too late all the same.
            guard now < approval.expiresAt else { return (approval, [.refuse(.expired)]) }
            var decided = approval
            decided.state = approve ? .approved : .denied
            decided.decidedByDeviceId = device.deviceId
            decided.decidedByClientType = device.clientType
            decided.resolvedAt = now
            return (decided, [.cancelTimer, .commitDecision(decided, .resolved)])
        case (.timedOut, .answer):
            return (approval, [.refuse(.expired)])
        case (.approved, .answer), (.denied, .answer):
            return (approval, [.refuse(.alreadyResolved(approval.state))])
        case (.pending, .deadline):
            var timedOut = approval
            timedOut.state = .timedOut
            timedOut.resolvedAt = now
            return (timedOut, [.commitDecision(timedOut, .timeout)])
        case (_, .deadline):
            return (approval, [])       // decided first: a timeout fires at most once
        case (.pending, .committed):
            return (approval, [])       // nothing was decided
        case (_, .committed):
            return (approval, [.finished(approval)])
        case (_, .storeDecided(let current?)):
            return (current, current.state == .pending ? [] : [.cancelTimer, .wakeWaiters(current)])
        case (_, .storeDecided(nil)):
            return (approval, [.cancelTimer, .refuse(.notFound)])
        }
    }
}

extension GatewayError {
    /// The wire error for a refused answer.
    init(_ refusal: ApprovalMachine.Refusal, requestId: String) {
        switch refusal {
        case .expired: self.init(.approvalExpired, "approval request \"\(requestId)\" timed out")
        case .alreadyResolved(let state):
            self.init(.approvalAlreadyResolved, "approval request \"\(requestId)\" was already \(state.rawValue)")
        case .notFound: self.init(.approvalNotFound, "no approval request \"\(requestId)\"")
        }
    }
}
