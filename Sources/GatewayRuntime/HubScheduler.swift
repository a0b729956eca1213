import Dispatch
import EventLoop
import Gateway
import Glibc

/// Runs the gateway hub on its own event loop: timers on the loop's heap, blocking store reads on a Dispatch queue,
/// wall-clock time from CLOCK_REALTIME (deadlines are stored as Unix milliseconds so they survive restarts).
final class HubScheduler: GatewayScheduler, GatewayClock, Sendable {
    // `loop` is thread-safe for execute; schedule/cancel are only called on the loop's thread.
    let loop: EventLoop
    // Serial on purpose: an idempotent command reads the store before it commits, and two such commands from one
    // device must commit in the order they arrived — a concurrent queue could finish the second read first.
    private let blockingQueue = DispatchQueue(label: "switchboard.store-reads")

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

    func runBlocking(_ work: @escaping @Sendable () -> Void) { blockingQueue.async(execute: work) }
}

private final class LoopTimer: GatewayTimer {
    let loop: EventLoop
    let id: TimerID
    init(loop: EventLoop, id: TimerID) { self.loop = loop; self.id = id }
    func cancel() { loop.cancel(id) }
}
