import Testing
@testable import Gateway

/// The guessing limits as a pure machine: an injected `now`, no hub, no sockets.
@Suite struct AttemptLimiterTests {
    typealias Counter = AttemptLimiter.Counter
    let limiter = AttemptLimiter(windowMs: 1_000)
    let address = Counter(key: "address:a", limit: 3)
    let node = Counter(key: "node", limit: 5)

    /// Feeds attempts in order, each at its time, and returns the decisions.
    func run(_ attempts: [(AttemptLimiter.Attempt, Int64)], from start: AttemptLimiter.State = .init()) -> (AttemptLimiter.State, [AttemptLimiter.Decision]) {
        var state = start
        var decisions: [AttemptLimiter.Decision] = []
        for (attempt, now) in attempts {
            let (next, decision) = limiter.decide(state, attempt, now: now)
            state = next
            decisions.append(decision)
        }
        return (state, decisions)
    }

    @Test func countedAttemptsUpToTheLimitPassAndTheNextWaitsForTheOldestToLeaveTheWindow() {
        let (_, decisions) = run([(.count([address]), 100), (.count([address]), 200), (.count([address]), 300),
                                  (.count([address]), 400), (.count([address]), 1_099), (.count([address]), 1_100)])
        #expect(decisions == [.allowed, .allowed, .allowed,
                              .refused(key: "address:a", retryAfterMs: 700), .refused(key: "address:a", retryAfterMs: 1), .allowed])
    }

    /// Contact discovery counts entries: an attempt of weight w needs room for w, and waits until enough of the oldest
    /// entries have left; more than the limit at once is refused for a whole window.
    @Test func aWeightedAttemptNeedsRoomForAllItsEntries() {
        let discover = Counter(key: "discover:alice", limit: 6)
        let (_, decisions) = run([(.count([discover], weight: 4), 100), (.count([discover], weight: 3), 200),
                                  (.count([discover], weight: 2), 300), (.ask([discover]), 400),
                                  (.count([discover], weight: 7), 500), (.count([discover], weight: 3), 1_150),
                                  (.count([discover], weight: 2), 1_200)])
        #expect(decisions == [.allowed, .refused(key: "discover:alice", retryAfterMs: 900),
                              .allowed, .refused(key: "discover:alice", retryAfterMs: 700),
                              .refused(key: "discover:alice", retryAfterMs: 1_000), .allowed,
                              .refused(key: "discover:alice", retryAfterMs: 100)])
    }

    @Test func askingCountsNothingButIsRefusedOnceACounterIsFull() {
        let (_, asks) = run(Array(repeating: (.ask([address]), 10), count: 10))
        #expect(asks.allSatisfy { $0 == .allowed })
        let (_, decisions) = run([(.count([address]), 10), (.count([address]), 20), (.count([address]), 30), (.ask([address]), 40)])
        #expect(decisions.last == .refused(key: "address:a", retryAfterMs: 970))
    }

    @Test func anyFullCounterRefusesAndARefusedAttemptCountsUnderNone() {
        let other = Counter(key: "address:b", limit: 3)
        // Address a is full after 3; its 4th attempt must not use up the node's allowance.
        let (state, decisions) = run([(.count([address, node]), 0), (.count([address, node]), 0), (.count([address, node]), 0),
                                      (.count([address, node]), 0), (.count([address, node]), 0),
                                      (.count([other, node]), 0), (.count([other, node]), 0), (.count([other, node]), 0)])
        #expect(decisions == [.allowed, .allowed, .allowed, .refused(key: "address:a", retryAfterMs: 1_000),
                              .refused(key: "address:a", retryAfterMs: 1_000), .allowed, .allowed,
                              .refused(key: "node", retryAfterMs: 1_000)])
        #expect(state.times["node"]?.count == 5)
        #expect(state.times["address:b"]?.count == 2)
    }

    @Test func theLongestWaitAmongFullCountersIsTheRetryTime() {
        let small = Counter(key: "user", limit: 1)
        let (_, decisions) = run([(.count([address]), 0), (.count([address]), 0), (.count([small]), 500), (.count([address]), 600),
                                  (.ask([small, address]), 700)])
        // address frees at 1 000 (300 from now), user at 1 500 (800 from now): the caller must wait for both.
        #expect(decisions.last == .refused(key: "user", retryAfterMs: 800))
    }

    @Test func keysNobodyUsesAnyMoreAreForgottenAfterAWindow() {
        var attempts: [(AttemptLimiter.Attempt, Int64)] = (0..<50).map { (.count([Counter(key: "address:\($0)", limit: 3)]), Int64($0)) }
        attempts.append((.ask([node]), 2_000))
        let (state, _) = run(attempts)
        #expect(state.times.isEmpty)
    }
}
