import Dispatch
import EventLoop
import Gateway
@testable import GatewayRuntime
import Synchronization
import Testing

/// The hub's blocking store reads on their real thread: lanes take turns of `HubScheduler.readsPerTurn`, so a second
/// user's read runs after one turn of a flooding user's, not after all of them.
@Suite struct StoreReadTurnsTests {
    /// What ran, in order (appended on the read thread).
    final class Ran<Item: Sendable>: Sendable {
        private let items = Mutex<[Item]>([])
        func append(_ item: Item) { items.withLock { $0.append(item) } }
        var all: [Item] { items.withLock { $0 } }
    }

    @Test func aSecondUsersReadRunsAfterOneTurnOfTheFloodAndEachLaneKeepsItsOrder() throws {
        let loop = try EventLoop(index: 0)
        let scheduler = HubScheduler(loop: loop)
        let order = Ran<String>()
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        func read(_ name: String, in lane: StoreReadLane) {
            finished.enter()
            scheduler.runBlocking(in: lane) {
                order.append(name)
                finished.leave()
            }
        }
        // The read thread is held by a read of the node until every other read is queued, so the order below is
        // decided by the lanes alone, not by how fast this thread queues.
        finished.enter()
        scheduler.runBlocking {
            gate.wait()
            finished.leave()
        }
        let flood = 3 * HubScheduler.readsPerTurn
        for index in 1...flood { read("a\(index)", in: .user("alice")) }
        read("b1", in: .user("bob"))
        read("b2", in: .user("bob"))
        gate.signal()
        #expect(finished.wait(timeout: .now() + .seconds(60)) == .success)

        let turn = HubScheduler.readsPerTurn
        let alice = (1...flood).map { "a\($0)" }
        let expected = Array(alice[0..<turn]) + ["b1", "b2"] + Array(alice[turn...])
        #expect(order.all == expected)
    }

    @Test func readsOfOneLaneAloneRunInTheOrderTheyWereGiven() throws {
        let scheduler = HubScheduler(loop: try EventLoop(index: 0))
        let order = Ran<Int>()
        let finished = DispatchGroup()
        for index in 0..<100 {
            finished.enter()
            scheduler.runBlocking(in: .user("alice")) {
                order.append(index)
                finished.leave()
            }
        }
        #expect(finished.wait(timeout: .now() + .seconds(60)) == .success)
        #expect(order.all == Array(0..<100))
    }
}
