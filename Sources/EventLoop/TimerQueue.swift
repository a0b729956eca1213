import Heap

/// Identifies a scheduled timer so it can be cancelled.
public struct TimerID: Hashable, Sendable {
    let raw: UInt64
}

/// Pending timers as a binary min-heap on (deadline, sequence): O(log n) insert and pop, O(1) cancel.
/// Cancelled entries stay in the heap until they surface or a compaction drops them, so cancel-heavy
/// workloads (every answered approval cancels its timeout) do not pay for a search.
/// Holds 100 000+ timers in a few MB. Owned by one loop thread.
struct TimerQueue {
    private struct Entry: Comparable {
        var deadline: UInt64
        var sequence: UInt64

        static func < (a: Entry, b: Entry) -> Bool {
            a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
        }
    }

    private var heap = BinaryHeap<Entry>()
    private var callbacks: [UInt64: () -> Void] = [:]
    private var nextSequence: UInt64 = 1

    /// Timers scheduled and not yet fired or cancelled.
    var count: Int { callbacks.count }

    mutating func schedule(at deadline: UInt64, _ callback: @escaping () -> Void) -> TimerID {
        let sequence = nextSequence
        nextSequence += 1
        callbacks[sequence] = callback
        heap.insert(Entry(deadline: deadline, sequence: sequence))
        return TimerID(raw: sequence)
    }

    /// Returns false when the timer already fired or was cancelled.
    @discardableResult
    mutating func cancel(_ id: TimerID) -> Bool {
        guard callbacks.removeValue(forKey: id.raw) != nil else { return false }
        // Cancelled entries may dominate the heap (e.g. approvals answered quickly); rebuild when they do.
        if heap.count > 64 && heap.count > 2 * callbacks.count { compact() }
        return true
    }

    /// The earliest live deadline, dropping cancelled entries on the way.
    mutating func nextDeadline() -> UInt64? {
        while let top = heap.min {
            if callbacks[top.sequence] != nil { return top.deadline }
            heap.removeMin()
        }
        return nil
    }

    /// Removes and returns the callbacks of every timer due at `now`, in deadline order.
    mutating func popExpired(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let top = heap.min, top.deadline <= now {
            heap.removeMin()
            if let callback = callbacks.removeValue(forKey: top.sequence) { due.append(callback) }
        }
        return due
    }

    private mutating func compact() {
        heap.removeAll { callbacks[$0.sequence] == nil }
    }
}
