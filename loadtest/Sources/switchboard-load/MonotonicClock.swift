import Glibc

/// Nanoseconds on CLOCK_MONOTONIC: never jumps with wall-clock changes, so latencies stay honest.
/// Stateless; safe from any thread.
enum MonotonicClock {
    /// The current monotonic time in nanoseconds.
    @inline(__always)
    static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Microseconds elapsed since `start` (a value from `nanoseconds()`), at least 1 so histograms can hold it.
    @inline(__always)
    static func microseconds(since start: UInt64) -> UInt64 {
        let now = nanoseconds()
        return now > start ? max(1, (now - start) / 1000) : 1
    }

    /// Sleeps the calling thread (coordinator only: never on an event loop).
    static func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
