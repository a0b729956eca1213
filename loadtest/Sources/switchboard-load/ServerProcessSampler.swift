import Glibc
import Metrics

/// Reads the server's CPU time and memory from /proc (`--server-pid`). Stateless apart from the PID; safe from any
/// thread. Linux only, like the rest of the harness.
struct ServerProcessSampler: Sendable {
    /// One reading.
    struct Sample: Codable, Sendable, Equatable {
        /// utime + stime (fields 14 and 15 of /proc/PID/stat), in seconds.
        var cpuSeconds: Double
        /// VmRSS from /proc/PID/status, in bytes.
        var rssBytes: Int
    }

    let pid: Int32

    /// - Throws: `LoadTestError.usage` when the process does not exist or its /proc entries cannot be read.
    init(pid: Int32) throws(LoadTestError) {
        self.pid = pid
        guard sample() != nil else {
            throw .usage("--server-pid \(pid): cannot read /proc/\(pid)/stat and /proc/\(pid)/status (no such process?)")
        }
    }

    /// The current CPU time and RSS, or nil once the process is gone.
    func sample() -> Sample? {
        ProcessStats.read(pid: pid).map { Sample(cpuSeconds: $0.cpuSeconds, rssBytes: $0.residentBytes) }
    }

    /// utime + stime in clock ticks (see `ProcessStats.cpuTicks`).
    static func cpuTicks(fromStat text: String) -> UInt64? { ProcessStats.cpuTicks(fromStat: text) }
}
