import Gateway
import Synchronization

/// A clock and scheduler moved by hand, running everything on the caller's thread: tests move time instead of
/// sleeping. Lives beside the tests, not in the shipped `Gateway` target.
public final class ManualScheduler: GatewayScheduler, GatewayClock, @unchecked Sendable {
    // @unchecked: used from one test thread; the timer list is only touched there.
    private final class Timer: GatewayTimer {
        let deadline: Int64
        let sequence: Int
        var callback: (() -> Void)?
        init(deadline: Int64, sequence: Int, callback: @escaping () -> Void) {
            self.deadline = deadline; self.sequence = sequence; self.callback = callback
        }
        func cancel() { callback = nil }
    }

    private var current: Int64
    private var timers: [Timer] = []
    private var sequence = 0

    public init(now: Int64 = 1_700_000_000_000) { current = now }

    public func now() -> Int64 { current }

    public func schedule(at deadline: Int64, _ callback: @escaping () -> Void) -> GatewayTimer {
        sequence += 1
        let timer = Timer(deadline: deadline, sequence: sequence, callback: callback)
        timers.append(timer)
        return timer
    }

    public func execute(_ task: @escaping @Sendable () -> Void) { task() }
    public func runBlocking(_ work: @escaping @Sendable () -> Void) { work() }

    /// Moves the clock forward, firing due timers in deadline order (each sees the clock at its own deadline).
    public func advance(by milliseconds: Int64) {
        let target = current + milliseconds
        while let next = timers.filter({ $0.callback != nil && $0.deadline <= target })
            .min(by: { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }) {
            current = max(current, next.deadline)
            let callback = next.callback
            next.callback = nil
            callback?()
        }
        timers.removeAll { $0.callback == nil }
        current = target
    }

    public var pendingTimers: Int { timers.filter { $0.callback != nil }.count }
}
