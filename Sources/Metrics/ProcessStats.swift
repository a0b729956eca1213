import Glibc

/// CPU time, resident memory and open descriptors of a process, from /proc (Linux). Used for this process's
/// `process_*` metrics and by the load generator to watch a server it was given the PID of.
public struct ProcessStats: Sendable, Equatable {
    /// utime + stime (fields 14 and 15 of /proc/PID/stat), in seconds.
    public var cpuSeconds: Double
    /// VmRSS from /proc/PID/status, in bytes.
    public var residentBytes: Int

    /// `pid` nil = this process. nil when the process is gone or its entries cannot be read.
    public static func read(pid: Int32? = nil) -> ProcessStats? {
        let dir = pid.map { "/proc/\($0)" } ?? "/proc/self"
        guard let stat = ProcFile.read(dir + "/stat"), let status = ProcFile.read(dir + "/status"),
              let ticks = cpuTicks(fromStat: stat), let rssKiB = ProcFile.statusField("VmRSS", in: status) else { return nil }
        return ProcessStats(cpuSeconds: Double(ticks) / ticksPerSecond, residentBytes: rssKiB * 1024)
    }

    private static let ticksPerSecond = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))

    /// utime + stime in clock ticks. The command name (field 2) may contain spaces and parentheses, so fields are
    /// counted from the last ")" (proc(5)).
    public static func cpuTicks(fromStat text: String) -> UInt64? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After ")" the first field is field 3 (state); utime is field 14, stime 15.
        guard fields.count > 12, let utime = UInt64(fields[11]), let stime = UInt64(fields[12]) else { return nil }
        return utime + stime
    }

    /// Entries of /proc/self/fd (this process's open descriptors, less the one used to list them), or nil.
    public static func openDescriptors() -> Int? {
        guard let dir = opendir("/proc/self/fd") else { return nil }
        defer { closedir(dir) }
        var n = 0
        while let entry = readdir(dir) {
            let first = withUnsafeBytes(of: entry.pointee.d_name) { $0.first ?? 0 }
            if first != UInt8(ascii: ".") { n += 1 }
        }
        return n - 1   // the directory stream's own descriptor
    }

    /// The soft RLIMIT_NOFILE (`process_max_fds`).
    public static func maxDescriptors() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// The `process_*` families Prometheus client libraries export, for this process.
    public static func render(into out: inout PrometheusText) {
        if let stats = read() {
            out.single("process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.", stats.cpuSeconds)
            out.single("process_resident_memory_bytes", "gauge", "Resident memory size, in bytes.", stats.residentBytes)
        }
        if let fds = openDescriptors() {
            out.single("process_open_fds", "gauge", "Open file descriptors.", fds)
        }
        out.single("process_max_fds", "gauge", "The open file descriptor limit (RLIMIT_NOFILE, soft).", maxDescriptors())
    }
}

/// A monotonic clock for latencies (CLOCK_MONOTONIC: never steps with the wall clock).
public enum MetricsClock {
    @inline(__always)
    public static func microseconds() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts.tv_sec * 1_000_000 + ts.tv_nsec / 1_000
    }
}
