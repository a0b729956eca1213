import Dispatch
import Glibc
import Synchronization
import Testing
@testable import EventLoop

@Suite struct EventLoopTests {
    @Test func executeRunsTasksOnTheLoopThreadInOrder() throws {
        let group = try EventLoopGroup(count: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        #expect(!loop.inEventLoop)
        let log = Mutex<[Int]>([])
        let semaphore = DispatchSemaphore(value: 0)
        for i in 0..<100 {
            loop.execute {
                precondition(loop.inEventLoop)
                log.withLock { $0.append(i) }
                if i == 99 { semaphore.signal() }
            }
        }
        #expect(semaphore.wait(timeout: .now() + 5) == .success)
        #expect(log.withLock { $0 } == Array(0..<100))
    }

    @Test func timersFireAfterTheirDelayAndCanBeCancelled() throws {
        let group = try EventLoopGroup(count: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let elapsed: UInt64? = onLoop(loop) { done in
            let start = loop.now
            let cancelled = loop.schedule(afterMilliseconds: 20) { fatalError("cancelled timer fired") }
            loop.cancel(cancelled)
            loop.schedule(afterMilliseconds: 50) { done(monotonicMilliseconds() - start) }
        }
        let ms = try #require(elapsed)
        #expect(ms >= 50)
        #expect(loop.pendingTimers == 0)
    }

    @Test func startedLoopsNameTheirThreadsForProfiles() throws {
        let plain = try EventLoop(index: 7)
        let named = try EventLoop(index: 8)
        try plain.start()
        try named.start(threadName: "sb-a-very-long-thread-name")
        defer { for loop in [plain, named] { loop.stop(); loop.join() } }
        let name: (EventLoop) -> String? = { loop in
            onLoop(loop) { done in
                // What `perf stat --per-thread` and `top -H` show for the calling thread.
                let fd = open("/proc/thread-self/comm", O_RDONLY)
                var bytes = [UInt8](repeating: 0, count: 64)
                let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                close(fd)
                done(n > 0 ? String(decoding: bytes[..<n].filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self) : "")
            }
        }
        #expect(name(plain) == "sb-io-7")
        #expect(name(named) == "sb-a-very-long-")   // Linux keeps 15 bytes of a thread's name
    }

    @Test func groupSpreadsRoundRobin() throws {
        let group = try EventLoopGroup(count: 3)
        defer { group.shutdown() }
        let picks = (0..<6).map { _ in group.next().index }
        #expect(Set(picks) == [0, 1, 2])
    }
}
