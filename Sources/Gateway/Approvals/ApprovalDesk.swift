import GatewayProtocol

/// The approvals the hub holds and what waits on them: every pending approval (held from start, with its deadline
/// timer), decided ones of loaded users (forgotten with the user), each user's pending and decided ids, and the
/// backends long-polling for a decision. The hub's approval flow (GatewayHub+Approvals) decides with
/// `ApprovalMachine` and commits; this keeps the records, the gauge of pending ones, the timers and the waiters.
///
/// `@unchecked Sendable`: confined to the hub thread; Sendable so hub tasks can carry it back there.
final class ApprovalDesk: @unchecked Sendable {
    private let scheduler: GatewayScheduler
    private let clock: GatewayClock
    private let metrics: GatewayMetrics
    /// Told of every finished approval (the backend webhook); set before `start`.
    weak var observer: ApprovalObserver?
    private var records: [String: ApprovalRecord] = [:]
    /// The ids of each user's pending approvals (push badges, `approvals_pending`).
    private var pendingIds: [String: Set<String>] = [:]
    /// The ids of each user's decided approvals held (they go with the user).
    private var decidedIds: [String: Set<String>] = [:]
    private var timers: [String: GatewayTimer] = [:]
    /// Long-polls waiting for each approval's decision; each leaves when answered or when its wait ends.
    private var waiters: [String: [Waiter]] = [:]
    private var waiterSerial: UInt64 = 0

    init(scheduler: GatewayScheduler, clock: GatewayClock, metrics: GatewayMetrics) {
        self.scheduler = scheduler
        self.clock = clock
        self.metrics = metrics
    }

    /// The approval held under `id` (pending ones, and decided ones of loaded users).
    subscript(id: String) -> ApprovalRecord? { records[id] }

    /// Keeps `approval` in memory, counting pending ones for the gauge.
    func remember(_ approval: ApprovalRecord) {
        let wasPending = records[approval.id]?.state == .pending
        records[approval.id] = approval
        index(approval)
        switch (wasPending, approval.state == .pending) {
        case (false, true): metrics.pendingApprovals.add(1, ordering: .relaxed)
        case (true, false): metrics.pendingApprovals.subtract(1, ordering: .relaxed)
        default: break
        }
    }

    /// Drops an approval that was not created after all (nothing was stored), with its timer.
    func forget(_ approval: ApprovalRecord) {
        cancelTimer(of: approval.id)
        if records[approval.id]?.state == .pending { metrics.pendingApprovals.subtract(1, ordering: .relaxed) }
        records[approval.id] = nil
        index(approval, held: false)
    }

    /// Files `approval` under its user as pending or decided, or under neither when it is no longer held (`held`
    /// false).
    private func index(_ approval: ApprovalRecord, held: Bool = true) {
        let (id, user) = (approval.id, approval.userId)
        for pending in [true, false] {
            let ids = pending ? \ApprovalDesk.pendingIds : \ApprovalDesk.decidedIds
            if held && (approval.state == .pending) == pending {
                self[keyPath: ids][user, default: []].insert(id)
            } else if self[keyPath: ids][user]?.remove(id) != nil, self[keyPath: ids][user]?.isEmpty == true {
                self[keyPath: ids][user] = nil
            }
        }
    }

    /// Forgets `userId`'s decided approvals (the user is forgotten; they are read again when asked for). Its pending
    /// ones stay, with their deadlines.
    func forgetDecided(of userId: String) {
        for id in decidedIds.removeValue(forKey: userId) ?? [] where records[id]?.state != .pending {
            records[id] = nil
        }
    }

    /// Forgets every approval of `userId`, pending ones too, with their timers (the user was deleted: nothing of
    /// theirs is decided any more). Long-polls on them answer with nothing when their wait ends.
    func forgetAll(of userId: String) {
        for id in (pendingIds[userId] ?? []).union(decidedIds[userId] ?? []) {
            if let approval = records[id] { forget(approval) }
        }
        pendingIds[userId] = nil
        decidedIds[userId] = nil
    }

    /// Pending approvals of a user, oldest first.
    func pending(of userId: String) -> [ApprovalRecord] {
        (pendingIds[userId] ?? []).compactMap { records[$0] }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// How many approvals of `userId` are pending (the push badge).
    func pendingCount(of userId: String) -> Int { pendingIds[userId]?.count ?? 0 }

    // MARK: Deadlines

    /// Arms the deadline of `approval` (not before `notBefore`: used after a failed commit), replacing an armed one;
    /// when it fires, `due` gets the approval as held then.
    func armDeadline(of approval: ApprovalRecord, notBefore: Int64 = 0, due: @escaping (ApprovalRecord) -> Void) {
        let id = approval.id
        cancelTimer(of: id)
        timers[id] = scheduler.schedule(at: max(approval.expiresAt, notBefore)) { [self] in
            timers[id] = nil
            if let current = records[id] { due(current) }
        }
    }

    func cancelTimer(of id: String) {
        timers.removeValue(forKey: id)?.cancel()
    }

    // MARK: Long-polls

    /// Answers with the approval's data once it is decided, or after `waitMs` with its state then (at once when it is
    /// decided already or `waitMs` is 0).
    func wait(for approval: ApprovalRecord, waitMs: Int64, completion: @escaping (ApprovalData?) -> Void) {
        let id = approval.id
        guard approval.state == .pending, waitMs > 0 else { return completion(GatewayHub.approvalData(approval)) }
        var done = false
        waiterSerial &+= 1
        let serial = waiterSerial
        let timer = scheduler.schedule(at: clock.now() + waitMs) { [self] in
            guard !done else { return }
            done = true
            // A poll that timed out leaves nothing behind: waiters are bounded by the polls in flight.
            waiters[id]?.removeAll { $0.serial == serial }
            if waiters[id]?.isEmpty == true { waiters[id] = nil }
            completion(records[id].map(GatewayHub.approvalData))
        }
        waiters[id, default: []].append(
            Waiter(serial: serial) { final in
                guard !done else { return }
                done = true
                timer.cancel()
                completion(GatewayHub.approvalData(final))
            })
    }

    /// Answers the long-polls waiting on `approval`.
    func wakeWaiters(of approval: ApprovalRecord) {
        for waiter in waiters.removeValue(forKey: approval.id) ?? [] { waiter.wake(approval) }
    }

    /// The approval is decided for good: the long-polls and the observer hear of it.
    func finished(_ approval: ApprovalRecord) {
        wakeWaiters(of: approval)
        observer?.approvalFinished(approval)
    }

    /// The names of the structures here holding anything of `userId` beyond its pending approvals (for tests: a
    /// forgotten user leaves nothing).
    func structures(holding userId: String) -> [String] {
        [
            ("pendingApprovalIds", pendingIds[userId] != nil),
            (
                "approvals",
                decidedIds[userId] != nil || records.values.contains { $0.userId == userId && $0.state != .pending }
            )
        ]
        .filter(\.1).map(\.0)
    }

    /// Whether any long-poll waits (for tests: none is left behind).
    var hasWaiters: Bool { !waiters.isEmpty }

    /// A long-poll waiting for an approval's decision; `serial` finds it again when its wait ends first.
    private struct Waiter {
        var serial: UInt64
        var wake: (ApprovalRecord) -> Void
    }
}
