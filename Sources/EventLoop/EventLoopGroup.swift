import Glibc
import Synchronization

/// N event loops, each on its own thread. Connections are spread across them; each stays on its loop for life.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let cursor = Atomic<Int>(0)

    /// Starts `count` loops (0 = one per online CPU core).
    public init(count: Int = 0) throws {
        let n = count > 0 ? count : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        var loops: [EventLoop] = []
        for i in 0..<n {
            let loop = try EventLoop(index: i)
            try loop.start()
            loops.append(loop)
        }
        self.loops = loops
    }

    /// Round-robin choice of a loop (for connections that do not come through a per-loop listener).
    public func next() -> EventLoop {
        loops[cursor.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Stops every loop after its current iteration and waits for the threads.
    public func shutdown() {
        for loop in loops { loop.stop() }
        for loop in loops { loop.join() }
    }
}
