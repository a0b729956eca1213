/// Each watcher's coalesced background presence pushes (`PushPolicy.presence`): the contacts whose changes wait to
/// be pushed, the timer that sends them, and when the watcher's last push went out.
///
/// With several nodes (docs/CLUSTER.md, "Presence across nodes") every node holding a watcher computes the same
/// changes and would push them; each push is claimed in the store (`StoreWrite.claimPresencePush`, at most one per
/// watcher per interval), so exactly one node sends it. When the last push went out matters for one interval only:
/// after it `PushPolicy.presence` treats the watcher as never pushed. So each time is kept until one interval after it
/// and then swept by one timer for the whole map (docs/ARCHITECTURE.md, "Memory bounds"); it is not dropped when the
/// watcher is forgotten, because the rate limit must hold across an eviction (a push armed too early would lose its
/// claim and its changes).
///
/// `@unchecked Sendable`: confined to the hub thread; Sendable so hub tasks can carry it back there.
final class PresencePushes: @unchecked Sendable {
    private let scheduler: GatewayScheduler
    private let clock: GatewayClock
    private let intervalMs: Int64
    private var pending: [String: Set<String>] = [:]
    private var timers: [String: GatewayTimer] = [:]
    /// When each watcher's last presence push went out, until one interval after it.
    private var sentAt = ExpiringMap<String, Int64>()
    private var sweep: GatewayTimer?

    init(scheduler: GatewayScheduler, clock: GatewayClock, intervalMs: Int64) {
        self.scheduler = scheduler
        self.clock = clock
        self.intervalMs = intervalMs
    }

    /// The watcher's pushes as `PushPolicy.presence` takes them.
    func state(of watcher: String) -> PushPolicy.PresencePushes {
        PushPolicy.PresencePushes(changed: pending[watcher] ?? [], timerArmed: timers[watcher] != nil,
                                  sentAt: sentAt.value(watcher, now: clock.now()))
    }

    /// Keeps the policy's next state (`was`: the state it was given); an armed timer it no longer counts is dropped.
    func adopt(_ next: PushPolicy.PresencePushes, was: PushPolicy.PresencePushes, of watcher: String) {
        pending[watcher] = next.changed.isEmpty ? nil : next.changed
        if let at = next.sentAt, at != was.sentAt { noteSent(watcher, at: at) }
        if !next.timerArmed { timers[watcher] = nil }
    }

    /// Arms the watcher's push timer; `fire` runs when it is due.
    func armTimer(of watcher: String, at: Int64, fire: @escaping () -> Void) {
        timers[watcher] = scheduler.schedule(at: at, fire)
    }

    /// Whether anything of `watcher`'s waits (a change to push or a timer): the watcher is not idle.
    func holds(_ watcher: String) -> Bool { pending[watcher] != nil || timers[watcher] != nil }

    /// Another node claimed the watcher's push at `at`: it sent the changes this node had pending (it sees the same
    /// ones); this node's next push for the watcher waits one interval after that claim.
    func claimLost(by watcher: String, at: Int64) {
        noteSent(watcher, at: max(sentAt.value(watcher, now: clock.now()) ?? at, at))
    }

    /// Remembers that `watcher`'s last presence push went out at `at`, until one interval after it.
    private func noteSent(_ watcher: String, at: Int64) {
        sentAt.set(watcher, at, expiresAt: at + intervalMs)
        scheduleSweep()
    }

    /// Due at the earliest expiry, but at most once per interval, so a time is swept at most one interval after it
    /// expired and the map holds the pushes of the last two intervals at most.
    private func scheduleSweep() {
        guard sweep == nil, let next = sentAt.nextExpiry else { return }
        let due = max(next, clock.now() + max(1, intervalMs))
        sweep = scheduler.schedule(at: due) { [self] in
            sweep = nil
            sentAt.removeExpired(now: clock.now())
            scheduleSweep()
        }
    }

    /// The names of the structures here holding anything of `userId` (for tests: a forgotten user leaves nothing
    /// but its last send time, for one interval).
    func structures(holding userId: String) -> [String] {
        [("presencePushPending", pending[userId] != nil || pending.values.contains { $0.contains(userId) }),
         ("presencePushTimers", timers[userId] != nil), ("presencePushSentAt", sentAt.holds(userId))].filter(\.1).map(\.0)
    }

    /// Send times held and heap slots held (for tests: both bounded by the last two intervals' pushes).
    var sentAtCount: Int { sentAt.count }
    var sentAtSlotCount: Int { sentAt.slotCount }
}
