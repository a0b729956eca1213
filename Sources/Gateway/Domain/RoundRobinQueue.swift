/// A queue with one FIFO lane per key that hands out items in turns: up to `itemsPerTurn` from the lane whose turn it
/// is, then the next lane with items, round and round.
///
/// The store's reads ran in one FIFO, so one user keeping hundreds of `history` commands in flight put every other
/// user's read behind all of them. With a lane per user, another user's read waits for at most one turn of each
/// busy lane, however deep those lanes are. Within a lane the order is kept, so two reads of one device still run in
/// the order they were asked (an idempotent command reads before it commits). A lane with several items is served
/// several at a time, so one user alone is served back to back as before.
///
/// A plain value with no clock and no threads: the owner keeps it behind its lock.
public struct RoundRobinQueue<Key: Hashable, Item> {
    /// Items one lane is served in a row before the next lane's turn; at least 1.
    public let itemsPerTurn: Int
    private var lanes: [Key: Ring<Item>] = [:]
    /// Keys of the lanes with items, in turn order: the first is the lane being served.
    private var turns = Ring<Key>()
    /// Items the first lane in `turns` has been served in its current turn.
    private var servedThisTurn = 0

    public init(itemsPerTurn: Int) { self.itemsPerTurn = max(1, itemsPerTurn) }

    /// Items waiting in every lane.
    public private(set) var count = 0

    public var isEmpty: Bool { count == 0 }

    /// Lanes with items waiting.
    public var laneCount: Int { turns.count }

    /// Items waiting in `key`'s lane.
    public func count(of key: Key) -> Int { lanes[key]?.count ?? 0 }

    /// Adds `item` at the end of `key`'s lane. A lane that was empty joins the turns last.
    public mutating func enqueue(_ item: Item, for key: Key) {
        if lanes[key] == nil {
            lanes[key] = Ring()
            turns.append(key)
        }
        lanes[key]!.append(item)
        count += 1
    }

    /// The next item in turn order, or nil when nothing waits.
    public mutating func dequeue() -> Item? {
        guard let key = turns.first, let item = lanes[key]?.removeFirst() else { return nil }
        count -= 1
        servedThisTurn += 1
        if lanes[key]!.isEmpty {
            // An emptied lane leaves the turns; with a new item it joins again at the end.
            lanes[key] = nil
            _ = turns.removeFirst()
            servedThisTurn = 0
        } else if servedThisTurn == itemsPerTurn {
            turns.append(turns.removeFirst()!)
            servedThisTurn = 0
        }
        return item
    }

    /// The rest of the current lane's turn: up to `itemsPerTurn` items of one lane, in order (empty when nothing
    /// waits). Taking a turn at once lets the owner take its lock once per turn rather than once per item.
    public mutating func dequeueTurn() -> [Item] {
        var items: [Item] = []
        while let item = dequeue() {
            items.append(item)
            if servedThisTurn == 0 { break }  // the turn ended: the lane is empty or went to the back
        }
        return items
    }
}

extension RoundRobinQueue: Sendable where Key: Sendable, Item: Sendable {}

/// A FIFO over an array with a moving head, compacted once the consumed part is the larger half (amortised O(1)).
/// A taken slot is cleared at once, so a queued closure's captures are released when it is taken, not at compaction.
private struct Ring<Element> {
    private var storage: [Element?] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }
    var first: Element? { isEmpty ? nil : storage[head] }

    mutating func append(_ element: Element) { storage.append(element) }

    mutating func removeFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 32 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}

extension Ring: Sendable where Element: Sendable {}
