/// Exponential backoff with full jitter for ``PushOutcome/retry(after:reason:)`` outcomes.
///
/// Attempt n (1 = the first retry, after the first failed send) waits a uniformly random time in
/// `0...min(maxDelay, base × factor^(n-1))` ("full jitter": spreads a burst of failures so they do
/// not all come back at once). A server's `Retry-After` is a floor: the delay is never shorter.
/// After `maxAttempts` failed sends the policy gives up (nil) and the caller dead-letters.
/// A pure value: no clock, no global random state unless the default generator is used.
public struct RetryPolicy: Sendable, Equatable {
    /// Upper bound of the first retry's delay.
    public var baseMilliseconds: Int64
    /// Growth of the upper bound per attempt.
    public var factor: Int64
    /// Cap of the upper bound (not of `Retry-After`, which is honoured as sent).
    public var maxDelayMilliseconds: Int64
    /// Sends in total (the first one included) before giving up.
    public var maxAttempts: Int

    /// Defaults: 1 s base, ×2, at most 10 min, 12 sends (about 40 minutes of retrying at most,
    /// plus any Retry-After).
    public init(baseMilliseconds: Int64 = 1_000, factor: Int64 = 2, maxDelayMilliseconds: Int64 = 600_000,
                maxAttempts: Int = 12) {
        self.baseMilliseconds = max(1, baseMilliseconds)
        self.factor = max(1, factor)
        self.maxDelayMilliseconds = max(self.baseMilliseconds, maxDelayMilliseconds)
        self.maxAttempts = max(1, maxAttempts)
    }

    /// The jitter's upper bound for retry `attempt` (≥ 1), saturating at the cap.
    public func ceiling(attempt: Int) -> Int64 {
        var bound = baseMilliseconds
        var step = 1
        while step < attempt && bound < maxDelayMilliseconds {
            let (next, overflow) = bound.multipliedReportingOverflow(by: factor)
            bound = overflow ? maxDelayMilliseconds : next
            step += 1
        }
        return min(bound, maxDelayMilliseconds)
    }

    /// Milliseconds to wait before the next send, or nil to give up and dead-letter.
    /// - Parameters:
    ///   - attempt: failed sends so far (1 after the first failure).
    ///   - retryAfter: the server's `Retry-After` in milliseconds, if it sent one.
    ///   - random: returns a uniform value in the given closed range (injected for tests).
    public func delay(attempt: Int, retryAfter: Int64?,
                      random: (ClosedRange<Int64>) -> Int64 = { Int64.random(in: $0) }) -> Int64? {
        guard attempt >= 1, attempt < maxAttempts else { return nil }
        let jittered = random(0...ceiling(attempt: attempt))
        return max(jittered, retryAfter ?? 0)
    }

    /// ``delay(attempt:retryAfter:random:)`` for an outcome: nil for anything but `.retry`.
    public func delay(after outcome: PushOutcome, attempt: Int,
                      random: (ClosedRange<Int64>) -> Int64 = { Int64.random(in: $0) }) -> Int64? {
        guard case .retry(let after, _) = outcome else { return nil }
        return delay(attempt: attempt, retryAfter: after, random: random)
    }
}
