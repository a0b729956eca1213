/// Sliding-window limits on attempts that could be guesses (failed connect codes, new registrations, the entries of a
/// contact discovery), counted under
/// several keys at once — the user, the source address, the whole node — as a pure state machine: no clock, no
/// threads. The hub keeps the state and feeds it `now`.
///
/// An attempt is refused while **any** of its counters is full, and a refused attempt is not counted: so the entries
/// held are bounded by the node counter's limit per window, whatever the number of addresses an attacker uses, and
/// an address that stops trying is forgotten one window later.
public struct AttemptLimiter: Equatable, Sendable {
    /// One limit: at most `limit` counted attempts under `key` in any window.
    public struct Counter: Hashable, Sendable {
        public var key: String
        public var limit: Int
        public init(key: String, limit: Int) { (self.key, self.limit) = (key, limit) }
    }

    /// What is asked of the limits. `weight` is how many entries the attempt is (a discovery of 50 numbers is 50;
    /// a guess is 1): it goes ahead only when every counter has room for all of them.
    public enum Attempt: Equatable, Sendable {
        /// May an attempt go ahead? Nothing is counted (checked before looking at a code, so a full counter refuses
        /// even a right guess).
        case ask([Counter], weight: Int = 1)
        /// An attempt that counts (a failure, a new registration, a discovery): refused when a counter has no room
        /// for `weight` more entries, else counted `weight` times under every counter.
        case count([Counter], weight: Int = 1)

        public var counters: [Counter] {
            switch self {
            case .ask(let counters, _), .count(let counters, _): counters
            }
        }

        public var weight: Int {
            switch self {
            case .ask(_, let weight), .count(_, let weight): weight
            }
        }
    }

    /// The limits' answer.
    public enum Decision: Equatable, Sendable {
        case allowed
        /// `key` is full until `retryAfterMs` from now (the longest wait among full counters).
        case refused(key: String, retryAfterMs: Int64)
    }

    /// One counted attempt: when, and how many entries it is.
    struct Entry: Equatable, Sendable {
        var at: Int64
        var weight: Int
    }

    /// The attempts counted so far.
    public struct State: Equatable, Sendable {
        /// Attempt times per key, oldest first; entries older than the window are dropped when the key is looked at
        /// and, for keys nobody looks at any more, by the sweep once per window. One entry per counted attempt,
        /// carrying its weight (a discovery of 500 numbers is one entry, not 500).
        var times: [String: [Entry]] = [:]
        var sweptAt: Int64 = 0
        public init() {}
    }

    public let windowMs: Int64
    public init(windowMs: Int64) { self.windowMs = windowMs }

    /// Feeds one attempt at `now`: the next state and whether it may go ahead.
    public func decide(_ state: State, _ attempt: Attempt, now: Int64) -> (State, Decision) {
        var next = state
        if now - next.sweptAt >= windowMs {
            next.times = next.times.compactMapValues { times in times.last.map { $0.at > now - windowMs } == true ? times : nil }
            next.sweptAt = now
        }
        let counters = attempt.counters, weight = max(1, attempt.weight)
        var refusal: (key: String, retryAfterMs: Int64)?
        for counter in counters {
            var times = next.times[counter.key] ?? []
            if let firstLive = times.firstIndex(where: { $0.at > now - windowMs }) { times.removeFirst(firstLive) } else { times = [] }
            next.times[counter.key] = times.isEmpty ? nil : times
            let used = times.reduce(0) { $0 + $1.weight }
            guard used + weight > counter.limit else { continue }
            // The counter has room again when enough of its oldest entries have left the window (never, for more
            // entries than the limit: then one window is the answer).
            var freeAt = now + windowMs
            if weight <= counter.limit {
                var freed = 0
                for entry in times {
                    freed += entry.weight
                    if freed >= used + weight - counter.limit { freeAt = entry.at + windowMs; break }
                }
            }
            let wait = max(1, freeAt - now)
            if wait > refusal?.retryAfterMs ?? 0 { refusal = (counter.key, wait) }
        }
        if let refusal { return (next, .refused(key: refusal.key, retryAfterMs: refusal.retryAfterMs)) }
        if case .count = attempt {
            for counter in counters { next.times[counter.key, default: []].append(Entry(at: now, weight: weight)) }
        }
        return (next, .allowed)
    }
}
