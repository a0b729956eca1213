/// Paces events at a fixed rate from a start time: `take` says how many are owed by now (no catch-up cap: a stalled
/// loop sends a burst, which is what a real backend queue does too). Value type, loop-confined.
struct Pacer {
    let perSecond: Double
    private let startNs: UInt64
    private var emitted = 0

    init(perSecond: Double, startNs: UInt64 = MonotonicClock.nanoseconds()) {
        self.perSecond = perSecond
        self.startNs = startNs
    }

    /// Events owed at `nowNs` and not yet taken.
    mutating func take(nowNs: UInt64 = MonotonicClock.nanoseconds()) -> Int {
        let owed = Int(Double(nowNs &- startNs) / 1e9 * perSecond)
        defer { emitted = max(emitted, owed) }
        return max(0, owed - emitted)
    }
}
