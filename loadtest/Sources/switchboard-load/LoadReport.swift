/// The complete result of a run: what was asked, what was measured, and the verdict. This is what `--json` writes
/// and what the table and the HTML report are rendered from. Built on the main thread at the end of the run.
struct LoadReport: Codable, Sendable {
    /// One line of the once-a-second progress, kept for the throughput-over-time chart.
    struct SecondSample: Codable, Sendable, Equatable {
        var elapsedSeconds: Double
        var open: Int
        var messagesPerSecond: Double
        var errors: Int
        var serverCPUPercent: Double?
        var serverRSSBytes: Int?
    }

    /// Server resource use, present with `--server-pid`.
    struct ServerUsage: Codable, Sendable, Equatable {
        var pid: Int32
        var cpuSeconds: Double
        var rssBeforeBytes: Int
        /// RSS at the once-a-second sample with the most connections open (the hold phase).
        var rssHeldBytes: Int
        var rssPeakBytes: Int
        var rssAfterBytes: Int
        /// Connections open at that sample.
        var connectionsHeld: Int
        /// (held RSS − RSS before) / connections held.
        var rssPerConnectionBytes: Double?
        /// Messages echoed per second of server CPU time (nil when no messages or no CPU was used).
        var messagesPerCPUSecond: Double?
    }

    var tool = "switchboard-load"
    var scenario: String
    var parameters: [String: String]
    var url: String
    var connections: Int
    var rate: Double
    var durationSeconds: Double
    var workers: Int
    var loops: Int
    var deflate: Bool
    var sourceAddresses: [String]

    var wallSeconds: Double
    var connectAttempts: Int
    var connectsSucceeded: Int
    var messagesSent: Int
    var messagesReceived: Int
    var bytesSent: Int
    var bytesReceived: Int
    /// Received messages per second over the active window (first connect → end of sending).
    var messagesPerSecond: Double
    var bytesPerSecond: Double
    var activeSeconds: Double
    /// Seconds from the first connect attempt until every planned attempt finished (the longest loop's ramp).
    var rampSeconds: Double
    /// Upgrades completed per second of the ramp (connects succeeded ÷ `rampSeconds`): the connect rate reached.
    var upgradesPerSecond: Double
    /// `--in-flight` (0 = no cap).
    var inFlight: Int
    var echoesLost: Int
    var echoesDuplicated: Int
    var echoesCorrupted: Int
    var errors: [String: Int]
    /// Scenario-specific counts ("approvals_posted", …).
    var counts: [String: Int]
    /// Connections opened by the scenario beyond `connections` (churn, resume checks).
    var extraConnectAttempts: Int
    /// Latency summaries in microseconds, by metric ("upgrade", "round_trip"); only metrics with values.
    var latency: [String: LatencySummary]
    /// Percentile curves in microseconds, by metric, for charts.
    var latencyCurves: [String: [PercentilePoint]]
    var server: ServerUsage?
    var samples: [SecondSample]
    /// True when nothing failed: no errors of any kind and no lost, duplicated or corrupted echo.
    var passed: Bool

    /// Assembles the report from the merged stats and what the coordinator observed.
    init(scenario: any Scenario, options: CommonOptions, stats: LoadStats, wallSeconds: Double,
         samples: [SecondSample], server: ServerUsage?) {
        self.scenario = scenario.name
        parameters = scenario.parameters
        url = options.url
        connections = options.connections
        rate = options.rate
        durationSeconds = options.duration
        workers = options.workers
        loops = options.loops
        deflate = options.deflate
        sourceAddresses = options.sourceAddressList
        self.wallSeconds = wallSeconds
        connectAttempts = stats.connectAttempts
        connectsSucceeded = stats.connectsSucceeded
        messagesSent = stats.messagesSent
        messagesReceived = stats.messagesReceived
        bytesSent = stats.bytesSent
        bytesReceived = stats.bytesReceived
        activeSeconds = stats.activeSeconds
        rampSeconds = stats.rampSeconds
        upgradesPerSecond = stats.rampSeconds > 0 ? Double(stats.connectsSucceeded) / stats.rampSeconds : 0
        inFlight = options.inFlight
        messagesPerSecond = stats.activeSeconds > 0 ? Double(stats.messagesReceived) / stats.activeSeconds : 0
        bytesPerSecond = stats.activeSeconds > 0 ? Double(stats.bytesReceived) / stats.activeSeconds : 0
        echoesLost = stats.echoesLost
        echoesDuplicated = stats.echoesDuplicated
        echoesCorrupted = stats.echoesCorrupted
        errors = stats.errors
        counts = stats.counts
        extraConnectAttempts = stats.extraConnectAttempts
        var latency: [String: LatencySummary] = [:]
        var curves: [String: [PercentilePoint]] = [:]
        let named = [("upgrade", stats.upgradeLatency), ("round_trip", stats.roundTripLatency)]
            + stats.latencies.map { ($0.key, $0.value) }
        for (metric, histogram) in named where histogram.count > 0 {
            latency[metric] = histogram.summary
            curves[metric] = histogram.percentileCurve
        }
        self.latency = latency
        latencyCurves = curves
        self.server = server
        self.samples = samples
        passed = stats.errorCount == 0 && !stats.hasVerificationFailures
            && stats.connectsSucceeded == stats.connectAttempts && stats.connectAttempts == options.connections
    }
}
