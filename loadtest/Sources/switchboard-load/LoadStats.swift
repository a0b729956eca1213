/// Everything one loop measured, mergeable across loops and worker processes.
///
/// Value type, not thread-safe: a loop driver owns one while running and hands a copy to the coordinator at the end;
/// workers send theirs to the parent as JSON. Latencies are microseconds; counts are exact.
struct LoadStats: Codable, Sendable {
    /// TCP connect start → 101 parsed, per successful upgrade.
    var upgradeLatency = LatencyHistogram()
    /// Send → echo received, per verified message (echo scenario).
    var roundTripLatency = LatencyHistogram()

    /// Connections attempted and those that reached the open state.
    var connectAttempts = 0
    var connectsSucceeded = 0
    /// Data messages sent and received; payload bytes (before compression) both ways.
    var messagesSent = 0
    var messagesReceived = 0
    var bytesSent = 0
    var bytesReceived = 0
    /// Echo verification, never hidden: expected messages that never came back (gaps in the sequence, or still
    /// outstanding when the drain timed out or the connection ended), those that came back twice or out of order,
    /// and those whose bytes or length differed from what was sent.
    var echoesLost = 0
    var echoesDuplicated = 0
    var echoesCorrupted = 0
    /// Failures by kind ("connect_refused", "closed_by_server_1001", "close_timeout", …).
    var errors: [String: Int] = [:]
    /// Scenario-specific latencies by metric name (gateway scenarios: "approval_delivery", "message", …).
    var latencies: [String: LatencyHistogram] = [:]
    /// Scenario-specific counts by name ("approvals_posted", "handoffs", …); informational, failures go to `errors`.
    var counts: [String: Int] = [:]
    /// Connections a scenario opened beyond `--connections` (churn, resume checks); their failures are in `errors`.
    var extraConnectAttempts = 0
    /// Seconds from this loop's first connect attempt until it stopped sending (the throughput window).
    var activeSeconds = 0.0
    /// Seconds from this loop's first connect attempt until every planned attempt had finished (opened or failed).
    var rampSeconds = 0.0
    /// Most planned attempts this loop had in flight at once (summed over loops when merged: an upper bound).
    var peakAttemptsInFlight = 0

    init() {}

    /// Records one latency of a named scenario metric.
    mutating func record(_ metric: String, microseconds: UInt64) {
        latencies[metric, default: LatencyHistogram()].record(microseconds: microseconds)
    }

    /// Counts one failure of `kind`.
    mutating func count(error kind: String) {
        errors[kind, default: 0] += 1
    }

    /// Total failures of every kind.
    var errorCount: Int { errors.values.reduce(0, +) }

    /// True when any echo went missing, came back twice, or came back different.
    var hasVerificationFailures: Bool { echoesLost + echoesDuplicated + echoesCorrupted > 0 }

    /// Adds `other` into this (loops and workers run in parallel, so the active window is the longest one).
    mutating func merge(_ other: LoadStats) {
        upgradeLatency.merge(other.upgradeLatency)
        roundTripLatency.merge(other.roundTripLatency)
        connectAttempts += other.connectAttempts
        connectsSucceeded += other.connectsSucceeded
        messagesSent += other.messagesSent
        messagesReceived += other.messagesReceived
        bytesSent += other.bytesSent
        bytesReceived += other.bytesReceived
        echoesLost += other.echoesLost
        echoesDuplicated += other.echoesDuplicated
        echoesCorrupted += other.echoesCorrupted
        for (kind, n) in other.errors { errors[kind, default: 0] += n }
        for (metric, histogram) in other.latencies { latencies[metric, default: LatencyHistogram()].merge(histogram) }
        for (name, n) in other.counts { counts[name, default: 0] += n }
        extraConnectAttempts += other.extraConnectAttempts
        activeSeconds = max(activeSeconds, other.activeSeconds)
        rampSeconds = max(rampSeconds, other.rampSeconds)
        peakAttemptsInFlight += other.peakAttemptsInFlight
    }
}
