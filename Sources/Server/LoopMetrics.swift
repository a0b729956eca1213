import Synchronization

/// Counters of one event loop. Written only by that loop's thread (relaxed atomics, no shared cache line between
/// loops); read by `/metrics` from any thread and summed across loops.
final class LoopMetrics: Sendable {
    let connectionsAccepted = Atomic<Int>(0)
    let connectionsOpen = Atomic<Int>(0)
    let acceptErrors = Atomic<Int>(0)
    let httpRequests = Atomic<Int>(0)
    let upgrades = Atomic<Int>(0)
    let messagesIn = Atomic<Int>(0)
    let messagesOut = Atomic<Int>(0)
    let controlFramesIn = Atomic<Int>(0)
    let framesOut = Atomic<Int>(0)
    let bytesIn = Atomic<Int>(0)
    let bytesOut = Atomic<Int>(0)
    let slowConsumerCloses = Atomic<Int>(0)
    let pingTimeouts = Atomic<Int>(0)
    let tlsHandshakeFailures = Atomic<Int>(0)
    let compressions = Atomic<Int>(0)
    let sharedCompressions = Atomic<Int>(0)
    /// Deadline sweeps this loop has finished (not exported): shows that deadlines have been checked since some
    /// moment, so a caller can wait for that rather than for time.
    let deadlineSweeps = Atomic<Int>(0)
    /// Rare events with a label: handshake failures by reason, closes by code, HTTP errors by status.
    private let labeled = Mutex<[String: [String: Int]]>([:])

    @inline(__always)
    func add(_ counter: borrowing Atomic<Int>, _ n: Int = 1) {
        counter.add(n, ordering: .relaxed)
    }

    func increment(_ family: String, label: String) {
        labeled.withLock { $0[family, default: [:]][label, default: 0] += 1 }
    }

    func labeledSnapshot() -> [String: [String: Int]] {
        labeled.withLock { $0 }
    }
}
