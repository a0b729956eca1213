import Glibc

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
    private let ticksPerSecond: Double

    /// - Throws: `LoadTestError.usage` when the process does not exist or its /proc entries cannot be read.
    init(pid: Int32) throws(LoadTestError) {
        self.pid = pid
        ticksPerSecond = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
        guard sample() != nil else {
            throw .usage("--server-pid \(pid): cannot read /proc/\(pid)/stat and /proc/\(pid)/status (no such process?)")
        }
    }

    /// The current CPU time and RSS, or nil once the process is gone.
    func sample() -> Sample? {
        guard let stat = ProcFile.read("/proc/\(pid)/stat"),
              let status = ProcFile.read("/proc/\(pid)/status"),
              let cpu = Self.cpuTicks(fromStat: stat),
              let rssKiB = ProcFile.statusField("VmRSS", in: status) else { return nil }
        return Sample(cpuSeconds: Double(cpu) / ticksPerSecond, rssBytes: rssKiB * 1024)
    }

    /// utime + stime in clock ticks. The command name (field 2) may contain spaces and parentheses, so fields are
    /// counted from the last ")" (proc(5)).
    static func cpuTicks(fromStat text: String) -> UInt64? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After ")" the first field is field 3 (state); utime is field 14, stime 15.
        guard fields.count > 12, let utime = UInt64(fields[11]), let stime = UInt64(fields[12]) else { return nil }
        return utime + stime
    }
}
