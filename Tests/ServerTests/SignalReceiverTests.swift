import Foundation
import Gateway
import Synchronization
import Testing
@testable import GatewayRuntime
@testable import Server

/// The cluster bus's hand-off to the hub: every signal reaches the receiver set last, and the cost of a hand-off does
/// not grow with the signals before it (a closure kept directly in a `Mutex` got one more thunk per signal).
@Suite struct SignalReceiverTests {
    @Test func signalsReachTheReceiverSetLastAndNoneAfterItIsCleared() {
        let receiver = SignalReceiver()
        let first = Mutex<[ClusterSignal]>([]), second = Mutex<[ClusterSignal]>([])
        receiver(.lost)                                   // nobody set yet: dropped
        receiver.set { signal in first.withLock { $0.append(signal) } }
        receiver(.advanced(userId: "ann", offset: 1))
        receiver.set { signal in second.withLock { $0.append(signal) } }
        receiver(.restored)
        receiver.set(nil)
        receiver(.advanced(userId: "ann", offset: 2))
        #expect(first.withLock { $0 } == [.advanced(userId: "ann", offset: 1)])
        #expect(second.withLock { $0 } == [.restored])
    }

    @Test func aHandOffCostsTheSameAfterManySignals() {
        let receiver = SignalReceiver()
        let count = Atomic<Int>(0)
        receiver.set { _ in count.add(1, ordering: .relaxed) }
        // 50 000 hand-offs take milliseconds (under a second on a loaded machine); with one more wrapper per signal
        // they took over a minute (quadratic).
        let started = ContinuousClock.now
        for offset in 1...50_000 { receiver(.advanced(userId: "ann", offset: Int64(offset))) }
        let elapsed = ContinuousClock.now - started
        #expect(count.load(ordering: .relaxed) == 50_000)
        #expect(elapsed < .seconds(15), "50 000 hand-offs took \(elapsed)")
    }
}
