import Heap
import Testing
import TestSupport

@Suite struct BinaryHeapTests {
    @Test func anEmptyHeapHasNoLeastElement() {
        var heap = BinaryHeap<Int>()
        #expect(heap.isEmpty && heap.count == 0 && heap.min == nil)
        #expect(heap.removeMin() == nil)
    }

    @Test func elementsComeOutInAscendingOrderWithDuplicates() {
        var heap = BinaryHeap<Int>()
        for value in [5, 3, 9, 3, 1, 7, 1, 8] { heap.insert(value) }
        #expect(heap.count == 8 && heap.min == 1)
        var out: [Int] = []
        while let least = heap.removeMin() { out.append(least) }
        #expect(out == [1, 1, 3, 3, 5, 7, 8, 9])
    }

    /// Random inserts, removals of the least and bulk removals, checked after every step against a sorted array.
    @Test func randomOperationsMatchASortedArray() {
        var random = SplitMix64(seed: 0x5EED_4EA9)
        var heap = BinaryHeap<Int>()
        var model: [Int] = []
        for step in 0..<5_000 {
            switch random.next() % 10 {
            case 0..<6:
                let value = Int(random.next() % 1_000)
                heap.insert(value)
                model.append(value)
                model.sort()
            case 6..<9:
                #expect(heap.removeMin() == (model.isEmpty ? nil : model.removeFirst()), "step \(step)")
            default:
                let divisor = Int(random.next() % 5) + 2
                heap.removeAll { $0 % divisor == 0 }
                model.removeAll { $0 % divisor == 0 }
            }
            #expect(heap.count == model.count && heap.min == model.first, "step \(step)")
        }
        var drained: [Int] = []
        while let least = heap.removeMin() { drained.append(least) }
        #expect(drained == model)
    }
}
