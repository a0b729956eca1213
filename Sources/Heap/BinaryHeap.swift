/// A binary min-heap: O(log n) insert and removal of the least element, O(1) look at it, O(n) rebuild after a bulk
/// removal. The project's one priority queue (the event loop's timers, the hub's expiring maps). Not thread-safe: a
/// value owned by one thread.
public struct BinaryHeap<Element: Comparable> {
    @usableFromInline var storage: [Element] = []

    @inlinable public init() {}

    /// Elements held.
    @inlinable public var count: Int { storage.count }

    @inlinable public var isEmpty: Bool { storage.isEmpty }

    /// The least element, nil when empty.
    @inlinable public var min: Element? { storage.first }

    @inlinable public mutating func insert(_ element: Element) {
        storage.append(element)
        siftUp(storage.count - 1)
    }

    /// Removes and returns the least element, nil when empty.
    @inlinable @discardableResult
    public mutating func removeMin() -> Element? {
        guard let last = storage.popLast() else { return nil }
        guard !storage.isEmpty else { return last }
        let least = storage[0]
        storage[0] = last
        siftDown(0)
        return least
    }

    /// Drops every element `shouldBeRemoved` selects, then restores the heap order in O(n).
    @inlinable public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        try storage.removeAll(where: shouldBeRemoved)
        guard storage.count > 1 else { return }
        for i in stride(from: storage.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }

    @inlinable mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard storage[child] < storage[parent] else { return }
            storage.swapAt(child, parent)
            child = parent
        }
    }

    @inlinable mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < storage.count else { return }
            var smallest = left
            if left + 1 < storage.count && storage[left + 1] < storage[left] { smallest = left + 1 }
            guard storage[smallest] < storage[parent] else { return }
            storage.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

extension BinaryHeap: Sendable where Element: Sendable {}
