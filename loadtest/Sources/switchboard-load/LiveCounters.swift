import Synchronization

/// The few numbers the once-a-second progress line needs, written by one loop and read by the coordinator.
///
/// Thread-safety: relaxed atomics; each loop has its own instance (no cache line shared between loops), and the
/// coordinator sums them. Values are monotonic totals except `open`.
final class LiveCounters: Sendable {
    /// Connections currently open (upgraded and not yet ended).
    let open = Atomic<Int>(0)
    /// Connection attempts finished, successfully or not (ramp progress).
    let attemptsDone = Atomic<Int>(0)
    /// Data messages received.
    let messagesReceived = Atomic<Int>(0)
    /// Failures of any kind, verification failures included.
    let errors = Atomic<Int>(0)
    /// Set once the loop driver finished every phase and published its final stats.
    let finished = Atomic<Bool>(false)

    init() {}

    /// A consistent-enough copy for one progress line.
    var snapshot: ProgressSnapshot {
        ProgressSnapshot(
            open: open.load(ordering: .relaxed), attemptsDone: attemptsDone.load(ordering: .relaxed),
            messagesReceived: messagesReceived.load(ordering: .relaxed), errors: errors.load(ordering: .relaxed),
            finished: finished.load(ordering: .acquiring) ? 1 : 0)
    }
}

/// Progress totals of one loop, one worker or the whole run (the sum of its parts).
struct ProgressSnapshot: Codable, Sendable, Equatable {
    var open = 0
    var attemptsDone = 0
    var messagesReceived = 0
    var errors = 0
    /// How many loops (or workers) have finished.
    var finished = 0

    /// Adds another part's totals.
    static func + (lhs: ProgressSnapshot, rhs: ProgressSnapshot) -> ProgressSnapshot {
        ProgressSnapshot(
            open: lhs.open + rhs.open, attemptsDone: lhs.attemptsDone + rhs.attemptsDone,
            messagesReceived: lhs.messagesReceived + rhs.messagesReceived, errors: lhs.errors + rhs.errors,
            finished: lhs.finished + rhs.finished)
    }
}
