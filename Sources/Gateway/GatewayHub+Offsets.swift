/// Giving offsets back after a failed batch.
///
/// The store accepts only a log's next offset (one above its highest; no holes, nothing below a committed offset),
/// and the writer applies a node's batches in the order the hub made them. So when a batch for user U fails, every
/// batch for U the hub made after it, before hearing of the failure, is refused too (its offsets sit above the hole)
/// unless another node filled the hole meanwhile, and each of them comes back failed and is retried in turn. The hub
/// counts these rounds per user (`offsetWaves`): the first failure of a round sets U's next offset from what it knows
/// (the store's latest on a lost offset, else just below the failed batch's first offset) and starts a new round; the
/// failures of batches made before that (the doomed ones) only raise it, so the retries queued meanwhile keep their
/// offsets and the batches go back in, in order, with consecutive offsets.
extension GatewayHub {
    /// Sets the next offset of every user `events` (a failed batch's, nothing of it stored) appended to; `waves` holds
    /// each user's round when the offsets were given out, `conflict` the store's answer if it refused a decision.
    func giveBackOffsets(of events: [StoredEvent], waves: [String: Int], conflict: StoreConflict?) {
        var taken: (userId: String, latest: Int64)?
        if case .offsetTaken(let userId, let latest) = conflict { taken = (userId, latest) }
        var seen = Set<String>()
        for event in events where seen.insert(event.userId).inserted {
            let userId = event.userId
            if offsetWaves[userId, default: 0] == waves[userId] {
                latestOffsets[userId] = taken?.userId == userId ? taken!.latest : event.offset - 1
                offsetWaves[userId, default: 0] += 1
            } else if let taken, taken.userId == userId {
                latestOffsets[userId] = max(latestOffsets[userId] ?? 0, taken.latest)
            }
        }
        if let taken, !seen.contains(taken.userId) {
            latestOffsets[taken.userId] = max(latestOffsets[taken.userId] ?? 0, taken.latest)
        }
    }
}
