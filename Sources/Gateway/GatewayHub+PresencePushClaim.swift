/// Background presence pushes with several nodes (docs/CLUSTER.md, "Presence across nodes"): every node holding a
/// watcher computes the same presence changes and would push them; each push is claimed in the store
/// (`StoreWrite.claimPresencePush`, at most one per watcher per `presencePushIntervalMs`), so exactly one node sends it.
extension GatewayHub {
    /// Another node claimed the watcher's push at `at`: it sent the changes this node had pending (it sees the same
    /// ones), so they are dropped; this node's next push for the watcher waits one interval after that claim.
    func presencePushClaimLost(_ watcher: String, _ conflict: StoreConflict) {
        guard case .presencePushClaimed(_, let at) = conflict else { return }
        metrics.presencePushesClaimedElsewhere.increment()
        presencePushSentAt[watcher] = max(presencePushSentAt[watcher] ?? at, at)
    }
}
