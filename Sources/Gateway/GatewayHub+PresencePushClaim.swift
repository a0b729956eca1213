/// Background presence pushes with several nodes (docs/CLUSTER.md, "Presence across nodes"): every node holding a
/// watcher computes the same presence changes and would push them; each push is claimed in the store
/// (`StoreWrite.claimPresencePush`, at most one per watcher per `presencePushIntervalMs`), so exactly one node sends it.
///
/// When each watcher's last push went out (`presencePushSentAt`) matters for one interval only: after it,
/// `PushPolicy.presence` treats the watcher as never pushed. So each time is kept until one interval after it and
/// then swept (docs/ARCHITECTURE.md, "Memory bounds"); it is not dropped when the watcher is forgotten, because the
/// rate limit must hold across an eviction (a push armed too early would lose its claim and its changes).
extension GatewayHub {
    /// Another node claimed the watcher's push at `at`: it sent the changes this node had pending (it sees the same
    /// ones), so they are dropped; this node's next push for the watcher waits one interval after that claim.
    func presencePushClaimLost(_ watcher: String, _ conflict: StoreConflict) {
        guard case .presencePushClaimed(_, let at) = conflict else { return }
        metrics.presencePushesClaimedElsewhere.increment()
        notePresencePushSent(watcher, at: max(presencePushSentAt.value(watcher, now: clock.now()) ?? at, at))
    }

    /// Remembers that `watcher`'s last presence push went out at `at`, until one interval after it.
    func notePresencePushSent(_ watcher: String, at: Int64) {
        presencePushSentAt.set(watcher, at, expiresAt: at + settings.presencePushIntervalMs)
        schedulePresencePushSweep()
    }

    /// One timer for the whole map: due at the earliest expiry, but at most once per interval, so a time is swept at
    /// most one interval after it expired and the map holds the pushes of the last two intervals at most.
    private func schedulePresencePushSweep() {
        guard presencePushSweep == nil, let next = presencePushSentAt.nextExpiry else { return }
        let due = max(next, clock.now() + max(1, settings.presencePushIntervalMs))
        presencePushSweep = scheduler.schedule(at: due) { [self] in
            presencePushSweep = nil
            presencePushSentAt.removeExpired(now: clock.now())
            schedulePresencePushSweep()
        }
    }
}
