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
    /// What is measured, for the run's first line: "pid 4242 (switchboard), listening on TCP 7420".
    let description: String

    /// - Throws: `LoadTestError.usage` when the process does not exist, its /proc entries cannot be read, or it
    ///   listens on no TCP port (then it is not a server: a shell's PID would be measured at 0 CPU seconds).
    init(pid: Int32) throws(LoadTestError) {
        self.pid = pid
        let name = ListeningPorts.name(pid: pid)
        guard ProcessStats.read(pid: pid) != nil else {
            throw .usage("--server-pid \(pid): cannot read /proc/\(pid)/stat and /proc/\(pid)/status (no such process?)")
        }
        guard let ports = ListeningPorts.of(pid: pid) else {
            throw .usage("--server-pid \(pid) (\(name)): cannot read /proc/\(pid)/fd to see what it listens on (run as its user or root)")
        }
        guard !ports.isEmpty else {
            throw .usage("--server-pid \(pid) (\(name)) listens on no TCP port: give the PID of the server under test (e.g. $(pgrep -x switchboard))")
        }
        description = "pid \(pid) (\(name)), listening on TCP " + ports.map(String.init).joined(separator: ", ")
    }

    /// The current CPU time and RSS, or nil once the process is gone.
    func sample() -> Sample? {
        ProcessStats.read(pid: pid).map { Sample(cpuSeconds: $0.cpuSeconds, rssBytes: $0.residentBytes) }
    }

    /// utime + stime in clock ticks (see `ProcessStats.cpuTicks`).
    static func cpuTicks(fromStat text: String) -> UInt64? { ProcessStats.cpuTicks(fromStat: text) }
}
