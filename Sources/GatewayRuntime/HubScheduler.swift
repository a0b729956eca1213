import Dispatch
import EventLoop
import Gateway
import Glibc
import Synchronization

/// Runs the gateway hub on its own event loop: timers on the loop's heap, blocking store reads on a Dispatch queue
/// in per-user turns, wall-clock time from CLOCK_REALTIME (deadlines are stored as Unix milliseconds so they survive
/// restarts).
final class HubScheduler: GatewayScheduler, GatewayClock, Sendable {
    /// Reads one lane runs in a row before the next lane's turn: enough to keep one busy user's reads back to back,
    /// few enough that another user's read waits a few milliseconds at most behind each busy lane.
    static let readsPerTurn = 8

    // `loop` is thread-safe for execute; schedule/cancel are only called on the loop's thread.
    let loop: EventLoop
    // Serial on purpose: an idempotent command reads the store before it commits, and two such commands from one
    // device must commit in the order they arrived — a concurrent queue could finish the second read first. The
    // lanes keep that order within a user; across users they take turns.
    private let blockingQueue = DispatchQueue(label: "switchboard.store-reads")
    private let reads = Mutex(ReadTurns())

    private struct ReadTurns {
        var queue = RoundRobinQueue<StoreReadLane, @Sendable () -> Void>(itemsPerTurn: HubScheduler.readsPerTurn)
        /// A drain is queued on or running on `blockingQueue`; it runs until the lanes are empty.
        var draining = false
    }

    init(loop: EventLoop) { self.loop = loop }

    func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    func schedule(at deadline: Int64, _ callback: @escaping () -> Void) -> GatewayTimer {
        let delay = UInt64(max(0, deadline - now()))
        return LoopTimer(loop: loop, id: loop.schedule(afterMilliseconds: delay, callback))
    }

    func execute(_ task: @escaping @Sendable () -> Void) { loop.execute(task) }

    func runBlocking(_ work: @escaping @Sendable () -> Void) { runBlocking(in: .shared, work) }

    func runBlocking(in lane: StoreReadLane, _ work: @escaping @Sendable () -> Void) {
        let start = reads.withLock { turns in
            turns.queue.enqueue(work, for: lane)
            defer { turns.draining = true }
            return !turns.draining
        }
        if start { blockingQueue.async { [self] in drainReads() } }
    }

    /// Runs the queued reads turn by turn until none is left (on `blockingQueue`), taking the lock once per turn.
    private func drainReads() {
        while true {
            let turn = reads.withLock { turns in
                let turn = turns.queue.dequeueTurn()
                if turn.isEmpty { turns.draining = false }
                return turn
            }
            if turn.isEmpty { return }
            for work in turn { work() }
        }
    }
}

private final class LoopTimer: GatewayTimer {
    let loop: EventLoop
    let id: TimerID
    init(loop: EventLoop, id: TimerID) { self.loop = loop; self.id = id }
    func cancel() { loop.cancel(id) }
}
