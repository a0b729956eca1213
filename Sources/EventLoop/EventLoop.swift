import CLinux
import Glibc
import Synchronization

/// Something the loop wakes when its file descriptor is ready.
public protocol EventHandler: AnyObject {
    /// Called on the loop thread. `hangup` covers EPOLLHUP/EPOLLERR/EPOLLRDHUP: the handler should read to find out why.
    func handleEvent(readable: Bool, writable: Bool, hangup: Bool)
}

/// Something with output to flush once per loop iteration, just before the loop sleeps (Redis's beforeSleep):
/// everything written while handling one batch of events goes out in one `writev`.
public protocol FlushHandler: AnyObject {
    func flushBeforeSleep()
}

/// A file descriptor's place in one loop. The generation lets the loop drop events that were already
/// collected for a registration closed earlier in the same iteration (its slot may have been reused).
public struct Registration: Sendable, Equatable {
    public let fd: Int32
    let slot: UInt32
    let generation: UInt32
    var token: UInt64 { UInt64(generation) << 32 | UInt64(slot) }
}

/// One epoll loop on one thread. Every connection registered here is touched only by this thread for its whole life,
/// so the read → parse → write path takes no locks. Other threads talk to it only through `execute`, which wakes the
/// loop through an eventfd.
///
/// Each iteration runs in named phases: poll (wait for I/O or the next timer) → I/O handlers → expired timers →
/// posted tasks → before-sleep flushes.
///
/// `@unchecked Sendable`: apart from the locked task queue and the atomic counters, state is touched only on the loop thread.
public final class EventLoop: @unchecked Sendable {
    public let index: Int
    let selector: Selector
    private let wakeFD: Int32
    private let wakeHandler: WakeHandler

    private struct Posted {
        var tasks: [@Sendable () -> Void] = []
        var wakePending = false
    }
    private let posted = Mutex(Posted())

    private var handlers: [EventHandler?] = []
    private var generations: [UInt32] = []
    private var freeSlots: [UInt32] = []
    private var timers = TimerQueue()
    private var flushQueue: [FlushHandler] = []
    private var stopRequested = false
    private var joinHandle: pthread_t?
    // pthread_t is an integer on Linux; atomic so `inEventLoop` is race-free from any thread.
    private let loopThread = Atomic<UInt>(0)

    /// Milliseconds on the monotonic clock, read once per wake-up (right after `epoll_wait`, so a sleep never leaves
    /// handlers a stale time) and again before timers; cheap to read from handlers.
    public private(set) var now: UInt64

    /// Shared by every connection of this loop: data is read here and only leftovers are copied per connection,
    /// which keeps idle connections small (uWebSockets does the same).
    public let readBuffer: UnsafeMutableRawBufferPointer

    // Read by /metrics from any thread.
    private let iterationCounter = Atomic<UInt64>(0)
    private let timerGauge = Atomic<Int>(0)
    public var iterations: UInt64 { iterationCounter.load(ordering: .relaxed) }
    public var pendingTimers: Int { timerGauge.load(ordering: .relaxed) }

    public init(index: Int = 0, readBufferSize: Int = 256 * 1024) throws {
        self.index = index
        selector = try Selector()
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError("eventfd") }
        wakeFD = fd
        wakeHandler = WakeHandler(fd: fd)
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readBufferSize, alignment: 16)
        now = monotonicMilliseconds()
        _ = try register(fd: fd, interest: .read, handler: wakeHandler)
    }

    deinit {
        close(wakeFD)
        readBuffer.deallocate()
    }

    /// True on this loop's own thread.
    public var inEventLoop: Bool {
        loopThread.load(ordering: .relaxed) == UInt(pthread_self())
    }

    // MARK: Registrations (loop thread only)

    public func register(fd: Int32, interest: Interest, handler: EventHandler) throws -> Registration {
        let slot: UInt32
        if let free = freeSlots.popLast() {
            slot = free
            handlers[Int(slot)] = handler
        } else {
            slot = UInt32(handlers.count)
            handlers.append(handler)
            generations.append(0)
        }
        let registration = Registration(fd: fd, slot: slot, generation: generations[Int(slot)])
        do {
            try selector.add(fd: fd, interest: interest, token: registration.token)
        } catch {
            release(slot)
            throw error
        }
        return registration
    }

    public func setInterest(_ registration: Registration, _ interest: Interest) throws {
        try selector.modify(fd: registration.fd, interest: interest, token: registration.token)
    }

    /// Stops events for the registration. The caller closes the fd afterwards.
    public func deregister(_ registration: Registration) {
        guard Int(registration.slot) < handlers.count,
              generations[Int(registration.slot)] == registration.generation else { return }
        selector.remove(fd: registration.fd)
        release(registration.slot)
    }

    private func release(_ slot: UInt32) {
        handlers[Int(slot)] = nil
        generations[Int(slot)] &+= 1
        freeSlots.append(slot)
    }

    // MARK: Timers (loop thread only)

    /// Runs `callback` on this loop after `milliseconds`. Millisecond resolution; fires in deadline order.
    @discardableResult
    public func schedule(afterMilliseconds milliseconds: UInt64, _ callback: @escaping () -> Void) -> TimerID {
        timers.schedule(at: monotonicMilliseconds() &+ milliseconds, callback)
    }

    /// Runs `callback` at a deadline on the monotonic millisecond clock (see `now`); a past deadline fires next iteration.
    @discardableResult
    public func schedule(atMilliseconds deadline: UInt64, _ callback: @escaping () -> Void) -> TimerID {
        timers.schedule(at: deadline, callback)
    }

    @discardableResult
    public func cancel(_ timer: TimerID) -> Bool { timers.cancel(timer) }

    // MARK: Flushing (loop thread only)

    /// Asks for `flushBeforeSleep()` at the end of this iteration. The handler keeps its own "already queued" flag.
    public func flushBeforeSleep(_ handler: FlushHandler) {
        flushQueue.append(handler)
    }

    // MARK: Cross-thread

    /// Runs `task` on this loop's thread. Safe from any thread; a burst of calls costs one eventfd write.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let needsWake = posted.withLock { state -> Bool in
            state.tasks.append(task)
            if state.wakePending { return false }
            state.wakePending = true
            return true
        }
        if needsWake && !inEventLoop { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        // EAGAIN means the counter is already non-zero: the loop will wake anyway.
        _ = write(wakeFD, &one, 8)
    }

    /// Asks the loop to return from `run()` after the current iteration. Safe from any thread.
    public func stop() {
        execute { [unowned self] in self.stopRequested = true }
    }

    // MARK: Running

    /// Runs the loop on the calling thread until `stop()`.
    public func run() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        while !stopRequested {
            runOnce()
        }
        // Last chance for queued output (e.g. close frames sent during shutdown).
        runPostedTasks()
        flush()
    }

    /// Starts the loop on a new thread, named `threadName` (default `sb-io-<index>`; Linux keeps 15 bytes) so
    /// per-thread profiles (`perf stat --per-thread`, `top -H`) tell the loops apart.
    public func start(threadName: String? = nil) throws {
        let box = Unmanaged.passRetained(self)
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { arg in
            let loop = Unmanaged<EventLoop>.fromOpaque(arg!).takeRetainedValue()
            loop.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            throw SystemError("pthread_create", errno: rc)
        }
        _ = clinux_set_thread_name(tid, String(decoding: (threadName ?? "sb-io-\(index)").utf8.prefix(15), as: UTF8.self))
        joinHandle = tid
    }

    /// Waits for the loop thread started by `start()` to finish.
    public func join() {
        guard let joinHandle, !inEventLoop else { return }
        pthread_join(joinHandle, nil)
        self.joinHandle = nil
    }

    private func runOnce() {
        iterationCounter.add(1, ordering: .relaxed)
        now = monotonicMilliseconds()

        // Phase 1: poll. Sleep until I/O or the next timer; do not sleep while tasks are waiting.
        var timeout: Int32 = -1
        if let deadline = timers.nextDeadline() {
            timeout = deadline <= now ? 0 : Int32(clamping: deadline - now)
        }
        if posted.withLock({ !$0.tasks.isEmpty }) { timeout = 0 }

        // Phase 2: I/O handlers.
        do {
            // The clock is read after the wait: the time before it is as old as the idle spell, and a connection
            // accepted now would be stamped with it (its deadlines would fire early).
            try selector.wait(timeoutMs: timeout, woke: { now = monotonicMilliseconds() }) { token, readable, writable, hangup in
                let slot = Int(token & 0xFFFF_FFFF)
                let generation = UInt32(token >> 32)
                guard slot < handlers.count, generations[slot] == generation, let handler = handlers[slot] else {
                    return // stale: closed earlier in this iteration
                }
                handler.handleEvent(readable: readable, writable: writable, hangup: hangup)
            }
        } catch {
            // epoll_wait only fails on programming errors (EBADF/EINVAL); spinning would hide them.
            fatalError("\(error)")
        }

        // Phase 3: timers.
        now = monotonicMilliseconds()
        for callback in timers.popExpired(now: now) { callback() }
        timerGauge.store(timers.count, ordering: .relaxed)

        // Phase 4: tasks posted from other threads (or this one).
        runPostedTasks()

        // Phase 5: before sleep: write what this iteration produced.
        flush()
    }

    private func runPostedTasks() {
        let tasks = posted.withLock { state -> [@Sendable () -> Void] in
            state.wakePending = false
            return state.tasks.isEmpty ? [] : { defer { state.tasks.removeAll(keepingCapacity: true) }; return state.tasks }()
        }
        for task in tasks { task() }
    }

    private func flush() {
        // Flushing may queue more flushes (a handler closing another); loop until quiet.
        while !flushQueue.isEmpty {
            let batch = flushQueue
            flushQueue.removeAll(keepingCapacity: true)
            for handler in batch { handler.flushBeforeSleep() }
        }
    }
}

/// Drains the eventfd so level-triggered epoll stops reporting it.
private final class WakeHandler: EventHandler {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        var value: UInt64 = 0
        _ = read(fd, &value, 8)
    }
}
