import Testing
@testable import EventLoop

@Suite struct TimerQueueTests {
    @Test func firesInDeadlineOrderAndOnlyWhenDue() {
        var queue = TimerQueue()
        var fired: [Int] = []
        // Callbacks capture a local array through a box because TimerQueue stores escaping closures.
        final class Box { var log: [Int] = [] }
        let box = Box()
        for (i, deadline) in [50, 10, 30, 10, 40].enumerated() {
            _ = queue.schedule(at: UInt64(deadline)) { box.log.append(i) }
        }
        let first = queue.nextDeadline()
        #expect(first == 10)
        for cb in queue.popExpired(now: 9) { cb() }
        #expect(box.log.isEmpty)
        for cb in queue.popExpired(now: 30) { cb() }
        #expect(box.log == [1, 3, 2])   // equal deadlines keep scheduling order
        for cb in queue.popExpired(now: 1000) { cb() }
        fired = box.log
        #expect(fired == [1, 3, 2, 4, 0])
        #expect(queue.count == 0)
        let none = queue.nextDeadline()
        #expect(none == nil)
    }

    @Test func cancelledTimersNeverFire() {
        var queue = TimerQueue()
        final class Box { var log: [Int] = [] }
        let box = Box()
        let a = queue.schedule(at: 5) { box.log.append(1) }
        _ = queue.schedule(at: 6) { box.log.append(2) }
        let firstCancel = queue.cancel(a)
        let secondCancel = queue.cancel(a)
        #expect(firstCancel)
        #expect(!secondCancel)             // second cancel reports it is gone
        let next = queue.nextDeadline()
        #expect(next == 6)                 // the cancelled head is skipped
        for cb in queue.popExpired(now: 100) { cb() }
        #expect(box.log == [2])
    }

    @Test func holdsAHundredThousandTimersAndCompactsAfterMassCancel() {
        var queue = TimerQueue()
        final class Counter { var n = 0 }
        let counter = Counter()
        var ids: [TimerID] = []
        for i in 0..<100_000 {
            ids.append(queue.schedule(at: UInt64(60_000 + (i * 7919) % 100_000)) { counter.n += 1 })
        }
        #expect(queue.count == 100_000)
        for id in ids[0..<90_000] { queue.cancel(id) }
        #expect(queue.count == 10_000)
        var last: UInt64 = 0
        var ordered = true
        while let next = queue.nextDeadline() {
            if next < last { ordered = false }
            last = next
            for cb in queue.popExpired(now: next) { cb() }
        }
        #expect(ordered)
        #expect(counter.n == 10_000)
    }
}
