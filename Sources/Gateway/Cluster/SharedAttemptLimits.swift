/// The guessing limits' counters shared by every node (docs/CLUSTER.md, "Rate limits across nodes"), so guesses
/// spread over several nodes meet one limit. Adapter: the server's Redis counters.
///
/// Counters held here may be lost (a restarted Redis forgets them): that forgives attempts, never refuses one. While
/// they cannot be reached a node decides with its own counters alone, which it keeps in any case.
public protocol SharedAttemptLimits: AnyObject, Sendable {
    /// Decides `attempt` as `AttemptLimiter` does, over a sliding window of `windowMs` ending at `now`, against the
    /// counters of every node. `completion` gets the decision, or nil when the shared counters could not be reached;
    /// it is called once, from any thread. Never blocks the caller.
    func decide(_ attempt: AttemptLimiter.Attempt, windowMs: Int64, now: Int64,
                completion: @escaping @Sendable (AttemptLimiter.Decision?) -> Void)
    /// Stops the adapter's thread; requests still queued are answered nil.
    func stop()
}
