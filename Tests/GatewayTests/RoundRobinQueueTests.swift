import Gateway
import Testing

/// The store-read queue's order: lanes take turns of a bounded size, each lane keeps its own order.
@Suite struct RoundRobinQueueTests {
    /// Everything left in `queue`, one item at a time.
    static func drain(_ queue: inout RoundRobinQueue<String, String>) -> [String] {
        var order: [String] = []
        while let item = queue.dequeue() { order.append(item) }
        return order
    }

    static func fill(_ queue: inout RoundRobinQueue<String, String>, _ key: String, _ count: Int, from first: Int = 1) {
        for index in first..<(first + count) { queue.enqueue("\(key)\(index)", for: key) }
    }

    @Test func aSecondUserWaitsForOneTurnNotForTheWholeFlood() {
        var queue = RoundRobinQueue<String, String>(itemsPerTurn: 3)
        Self.fill(&queue, "a", 10)
        queue.enqueue("b1", for: "b")
        #expect(queue.count == 11 && queue.laneCount == 2)
        #expect(Self.drain(&queue) == ["a1", "a2", "a3", "b1", "a4", "a5", "a6", "a7", "a8", "a9", "a10"])
        #expect(queue.isEmpty && queue.laneCount == 0)
    }

    @Test func interleavedLanesAlternateTurnsAndKeepTheirOwnOrder() {
        var queue = RoundRobinQueue<String, String>(itemsPerTurn: 2)
        for index in 1...4 {
            queue.enqueue("a\(index)", for: "a")
            queue.enqueue("b\(index)", for: "b")
            queue.enqueue("c\(index)", for: "c")
        }
        #expect(Self.drain(&queue) == ["a1", "a2", "b1", "b2", "c1", "c2", "a3", "a4", "b3", "b4", "c3", "c4"])
    }

    @Test func aLaneThatEmptiesRejoinsAtTheEnd() {
        var queue = RoundRobinQueue<String, String>(itemsPerTurn: 2)
        Self.fill(&queue, "a", 1)
        Self.fill(&queue, "b", 4)
        #expect(queue.dequeue() == "a1")  // a's lane is empty and leaves the turns
        #expect(queue.laneCount == 1)
        Self.fill(&queue, "a", 3, from: 2)  // a is back, behind b
        #expect(Self.drain(&queue) == ["b1", "b2", "a2", "a3", "b3", "b4", "a4"])
    }

    @Test func anItemAddedMidTurnToTheServedLaneWaitsForItsNextTurn() {
        var queue = RoundRobinQueue<String, String>(itemsPerTurn: 2)
        Self.fill(&queue, "a", 2)
        Self.fill(&queue, "b", 1)
        #expect(queue.dequeue() == "a1")
        queue.enqueue("a3", for: "a")
        #expect(Self.drain(&queue) == ["a2", "b1", "a3"])
    }

    @Test func oneLaneAloneIsServedInArrivalOrderInFullTurns() {
        var queue = RoundRobinQueue<String, String>(itemsPerTurn: 4)
        Self.fill(&queue, "a", 10)
        #expect(queue.dequeueTurn() == ["a1", "a2", "a3", "a4"])
        #expect(queue.dequeueTurn() == ["a5", "a6", "a7", "a8"])
        #expect(queue.dequeueTurn() == ["a9", "a10"])
        #expect(queue.dequeueTurn().isEmpty)
    }

    @Test func aTurnTakenAtOnceIsTheSameOrderAsOneByOne() {
        var byItem = RoundRobinQueue<String, String>(itemsPerTurn: 3)
        var byTurn = RoundRobinQueue<String, String>(itemsPerTurn: 3)
        for (key, count) in [("a", 7), ("b", 2), ("c", 5)] {
            Self.fill(&byItem, key, count)
            Self.fill(&byTurn, key, count)
        }
        #expect(byItem.dequeue() == "a1")  // both start mid-turn: the turn taken at once is what is left of it
        #expect(byTurn.dequeue() == "a1")
        var turns: [[String]] = []
        while case let turn = byTurn.dequeueTurn(), !turn.isEmpty { turns.append(turn) }
        #expect(turns == [["a2", "a3"], ["b1", "b2"], ["c1", "c2", "c3"], ["a4", "a5", "a6"], ["c4", "c5"], ["a7"]])
        #expect(turns.flatMap { $0 } == Self.drain(&byItem))
    }

    @Test func eachLaneCountsItsOwnItemsAndATurnIsAtLeastOne() {
        var queue = RoundRobinQueue<String, String>(itemsPerTurn: 0)
        #expect(queue.itemsPerTurn == 1)
        Self.fill(&queue, "a", 3)
        Self.fill(&queue, "b", 2)
        #expect(queue.count(of: "a") == 3 && queue.count(of: "b") == 2 && queue.count(of: "c") == 0)
        #expect(Self.drain(&queue) == ["a1", "b1", "a2", "b2", "a3"])
        #expect(queue.dequeue() == nil && queue.dequeueTurn().isEmpty)
    }

    /// Many items through one lane (the ring compacts as it goes) come out in order, and an item of another lane
    /// added at any point of a turn comes out after at most one turn of the flood.
    @Test func aLongFloodStaysInOrderAndAnotherLanesItemWaitsAtMostOneTurn() {
        var queue = RoundRobinQueue<Int, Int>(itemsPerTurn: 8)
        var flood: [Int] = [], others: [Int] = [], waits: [Int] = []
        for index in 0..<2_000 { queue.enqueue(index, for: 0) }
        for round in 0..<50 {
            queue.enqueue(10_000 + round, for: 1)
            var wait = 0
            while let item = queue.dequeue() {
                if item >= 10_000 {
                    others.append(item)
                    break
                }
                flood.append(item)
                wait += 1
            }
            waits.append(wait)
            // A varying number of the flood's items before the next one arrives, so it lands at every point of a turn.
            for _ in 0..<(round % 11) { if let item = queue.dequeue() { flood.append(item) } }
        }
        while let item = queue.dequeue() { flood.append(item) }
        #expect(flood == Array(0..<2_000))
        #expect(others == Array(10_000..<10_050))
        #expect(waits.allSatisfy { $0 <= 8 })
        #expect(Set(waits).count > 4)  // the arrivals did land at different points of the flood's turns
    }
}
