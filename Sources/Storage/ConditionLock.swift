import Glibc

/// A pthread mutex with one condition variable. Used instead of `Synchronization.Mutex` where a thread has to
/// sleep until another thread hands it work (the writer queue, a blocking reply).
///
/// The pthread objects live in their own allocations because they must never move in memory.
final class ConditionLock: @unchecked Sendable {
    // @unchecked: owns pthread objects, which are made for sharing between threads.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// Sleeps until signalled; the caller must hold the lock and re-check its predicate (spurious wake-ups).
    func wait() { pthread_cond_wait(condition, mutex) }
    func signal() { pthread_cond_signal(condition) }
    func broadcast() { pthread_cond_broadcast(condition) }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A one-shot value handed from the writer thread to a caller blocked in `wait()`.
final class BlockingReply<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = ConditionLock()
    private var value: Value?   // guarded by `lock`

    func fulfil(_ value: Value) {
        lock.withLock { self.value = value }
        lock.broadcast()
    }

    func wait() -> Value {
        lock.lock()
        defer { lock.unlock() }
        while value == nil { lock.wait() }
        return value!
    }
}
