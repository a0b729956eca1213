import Glibc
import Metrics

/// Up-front checks of what the machine allows, so a run fails in the first second with advice instead of
/// half-way through with EMFILE or EADDRNOTAVAIL. Call from the main thread before any loop starts.
enum ResourceLimits {
    /// Sockets and files a process needs besides its connections: epoll, eventfds, pipes, stdio, OpenSSL's files.
    static let descriptorSlack = 64

    /// Raises RLIMIT_NOFILE's soft limit to the hard limit and checks it covers `connections` sockets plus slack.
    /// - Throws: `LoadTestError.limits` saying how many are needed and how to get them.
    static func ensureDescriptors(for connections: Int, workers: Int) throws(LoadTestError) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let needed = UInt64(connections + descriptorSlack)
        guard UInt64(limit.rlim_cur) >= needed else {
            throw .limits("""
                this process needs \(needed) file descriptors for \(connections) connections but RLIMIT_NOFILE is \
                \(limit.rlim_cur) (hard limit \(limit.rlim_max)). Raise the hard limit (as root: `ulimit -Hn \(needed * 2)` \
                in the shell that starts the run, or `nofile` in /etc/security/limits.conf, or LimitNOFILE= for a \
                systemd service), or spread the load with more --workers (now \(workers)).
                """)
        }
    }

    /// The kernel's ephemeral port range (`/proc/sys/net/ipv4/ip_local_port_range`), nil when unreadable.
    static func ephemeralPortRange() -> ClosedRange<Int>? {
        guard let text = ProcFile.read("/proc/sys/net/ipv4/ip_local_port_range") else { return nil }
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        guard numbers.count == 2, numbers[0] <= numbers[1] else { return nil }
        return numbers[0]...numbers[1]
    }

    /// Checks that `connections` to one server address fit the ephemeral ports of `sourceCount` source addresses
    /// (each source address has the whole range towards one destination; 0 sources means the kernel picks one).
    /// - Throws: `LoadTestError.limits` with the numbers and the fix (`--source-addresses` or a wider range).
    static func ensurePorts(for connections: Int, sourceCount: Int, range: ClosedRange<Int>?) throws(LoadTestError) {
        guard let range else { return }
        let perSource = range.count
        let sources = max(1, sourceCount)
        guard connections <= perSource * sources else {
            let neededSources = (connections + perSource - 1) / perSource
            let example = (1...neededSources).map { "127.0.0.\($0)" }.joined(separator: ",")
            throw .limits("""
                \(connections) connections need more ephemeral ports than \(sources) source address(es) have: \
                ip_local_port_range is \(range.lowerBound)-\(range.upperBound) (\(perSource) ports per source and \
                destination). Use --source-addresses with at least \(neededSources) loopback addresses (e.g. \
                \(example)), or widen the range: sysctl -w net.ipv4.ip_local_port_range="1024 65535".
                """)
        }
    }

    /// A warning when one source address would use more than half its port range: Linux's connect() prefers ports
    /// of one parity and then searches the rest linearly (inet_hash_connect), so connect costs grow sharply past
    /// half the range (measured: the ramp stalls around 14 000 connections on the default range). Nil when fine.
    static func portSearchWarning(for connections: Int, sourceCount: Int, range: ClosedRange<Int>?) -> String? {
        guard let range else { return nil }
        let sources = max(1, sourceCount)
        let half = range.count / 2
        guard connections > half * sources else { return nil }
        let suggested = (connections + half - 1) / half
        return """
            \(connections) connections over \(sources) source address(es) use more than half of each source's \
            \(range.count) ephemeral ports; the kernel's port search then slows connects (seconds of upgrade latency \
            that belong to the client, not the server). Use --source-addresses with \(suggested) or more addresses.
            """
    }
}
