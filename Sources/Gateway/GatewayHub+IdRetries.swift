/// Ids the node draws from its own counter (message ids, `apr_<n>`), checked by the store's key: two nodes creating
/// messages at the same time keep drawing the same next id, so the loser's retry often meets the winner's next
/// insert again (measured with scripts/chaos: with 3 attempts, about 1 in 100 messages answered `storage_failed` at
/// 270 messages/s over two nodes). Retried like a lost offset: at once twice, then after a random 1…2^(n−2) ms
/// (at most 64), up to `offsetRetries` attempts, so the two fall out of step.
extension GatewayHub {
    /// Attempts at a fresh id after the store reported the previous one as taken.
    static let idAttempts = offsetRetries

    /// Runs `again` (the next attempt, `attempt`) at once or after the random pause for that attempt.
    func retryWithNewId(attempt: Int, _ again: @escaping () -> Void) {
        let delay = Self.offsetRetryDelayMs(attempt: attempt)
        guard delay > 0 else { return again() }
        _ = scheduler.schedule(at: clock.now() + delay, again)
    }
}
