/// Ids the node draws from its own counter (message ids, `apr_<n>`), checked by the store's key: two nodes creating
/// messages at the same time keep drawing the same next id, so the loser's retry often meets the winner's next
/// insert again (measured with scripts/chaos: with 3 attempts, about 1 in 100 messages answered `storage_failed` at
/// 270 messages/s over two nodes). Retried like a lost offset: at once twice, then after a random 1…2^(n−2) ms
/// (at most 64), up to 64 attempts, so the two fall out of step (giving up, 503 `storage_failed`, is practically
/// unreachable while the wait stays bounded: about 4 s at worst).
extension GatewayHub {
    /// Attempts at a fresh id after the store reported the previous one as taken.
    static let idAttempts = 64

    /// The wait before attempt `attempt` after an id collision (0: at once).
    static func idRetryDelayMs(attempt: Int) -> Int64 {
        attempt <= 2 ? 0 : Int64.random(in: 1...Int64(1 << min(attempt - 2, 6)))
    }

    /// Runs `again` (the next attempt, `attempt`) at once or after the random pause for that attempt.
    func retryWithNewId(attempt: Int, _ again: @escaping () -> Void) {
        let delay = Self.idRetryDelayMs(attempt: attempt)
        guard delay > 0 else { return again() }
        _ = scheduler.schedule(at: clock.now() + delay, again)
    }
}
