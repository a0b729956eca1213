/// Identifies a scheduled timer so it can be cancelled.
public struct TimerID: Hashable, Sendable {
    let raw: UInt64
}

/// Pending timers as a binary min-heap on (deadline, sequence): O(log n) insert and pop, O(1) cancel.
/// Cancelled entries stay in the heap until they surface or a compaction drops them, so cancel-heavy
/// workloads (every answered approval cancels its timeout) do not pay for a search.
/// Holds 100 000+ timers in a few MB. Owned by one loop thread.
struct TimerQueue {
    private struct Entry {
        var deadline: UInt64
        var sequence: UInt64
    }

    private var heap: [Entry] = []
    private var callbacks: [UInt64: () -> Void] = [:]
    private var nextSequence: UInt64 = 1

    /// Timers scheduled and not yet fired or cancelled.
    var count: Int { callbacks.count }

    mutating func schedule(at deadline: UInt64, _ callback: @escaping () -> Void) -> TimerID {
        let sequence = nextSequence
        nextSequence += 1
        callbacks[sequence] = callback
        heap.append(Entry(deadline: deadline, sequence: sequence))
        siftUp(heap.count - 1)
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
        while let top = heap.first {
            if callbacks[top.sequence] != nil { return top.deadline }
            popTop()
        }
        return nil
    }

    /// Removes and returns the callbacks of every timer due at `now`, in deadline order.
    mutating func popExpired(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let callback = callbacks.removeValue(forKey: top.sequence) { due.append(callback) }
        }
        return due
    }

    private mutating func compact() {
        heap.removeAll { callbacks[$0.sequence] == nil }
        guard heap.count > 1 else { return }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
    }

    private static func less(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count && Self.less(heap[left + 1], heap[left]) { smallest = left + 1 }
            guard Self.less(heap[smallest], heap[parent]) else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
