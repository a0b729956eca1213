/// The human-readable end-of-run summary printed on stdout: totals, a latency table (p50/p90/p99/p99.9/max in
/// microseconds), throughput, errors by kind, server usage, and PASS/FAIL. Pure formatting; no I/O.
struct TextReport {
    let report: LoadReport

    /// The whole summary, ending with a newline.
    func render() -> String {
        var out = ""
        var setup = "\(report.connections) connections"
        for key in report.parameters.keys.sorted() { setup += ", \(key) \(report.parameters[key]!)" }
        if report.deflate { setup += ", deflate" }
        setup += ", \(Self.number(report.durationSeconds)) s, \(report.workers) worker(s) × \(report.loops) loop(s)"
        out += "\nswitchboard-load \(report.scenario): \(report.url) (\(setup))\n"
        out += line("connections", """
            \(report.connectAttempts) attempted, \(report.connectsSucceeded) opened in \(Self.number(report.rampSeconds)) s \
            of ramp: \(Self.number(report.upgradesPerSecond)) upgrades/s\(report.inFlight > 0 ? " (≤ \(report.inFlight) in flight)" : "")
            """)
        if report.messagesSent > 0 || report.messagesReceived > 0 {
            out += line("messages", """
                sent \(report.messagesSent), received \(report.messagesReceived) in \
                \(Self.number(report.activeSeconds)) s: \(Self.number(report.messagesPerSecond)) msg/s, \
                \(Self.bytes(report.bytesPerSecond))/s
                """)
            if report.latency["round_trip"] != nil || report.echoesLost + report.echoesDuplicated + report.echoesCorrupted > 0 {
                out += line("verification", """
                    lost \(report.echoesLost), duplicated \(report.echoesDuplicated), corrupted \(report.echoesCorrupted)
                    """)
            }
        }
        if !report.counts.isEmpty {
            out += line("counts", report.counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                .joined(separator: ", "))
        }
        if report.extraConnectAttempts > 0 {
            out += line("extra", "\(report.extraConnectAttempts) connections opened by the scenario (churn, resume checks)")
        }
        let width = max(14, (report.latency.keys.map(\.count).max() ?? 0) + 2)
        out += "\n" + pad("latency (µs)", width)
        for title in ["count", "p50", "p90", "p99", "p99.9", "max"] { out += pad(title, 10, right: true) }
        out += "\n"
        for metric in report.latency.keys.sorted() {
            let s = report.latency[metric]!
            out += pad(metric, width)
            for value in [s.count, s.p50, s.p90, s.p99, s.p999, s.max] { out += pad(String(value), 10, right: true) }
            out += "\n"
        }
        if report.latency.isEmpty { out += "(no successful measurements)\n" }
        out += "\n"
        if report.errors.isEmpty {
            out += line("errors", "none")
        } else {
            let kinds = report.errors.sorted { $0.value == $1.value ? $0.key < $1.key : $0.value > $1.value }
            out += line("errors", kinds.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        if let server = report.server {
            var text = "pid \(server.pid): cpu \(Self.number(server.cpuSeconds)) s, rss \(Self.bytes(Double(server.rssBeforeBytes)))"
            text += " before, \(Self.bytes(Double(server.rssHeldBytes))) with \(server.connectionsHeld) open,"
            text += " \(Self.bytes(Double(server.rssPeakBytes))) peak, \(Self.bytes(Double(server.rssAfterBytes))) after"
            out += line("server", text)
            if let perConnection = server.rssPerConnectionBytes {
                out += line("memory", "\(Self.number(perConnection)) bytes per connection (RSS with connections open − before) / open")
            }
            if let perCPU = server.messagesPerCPUSecond {
                out += line("efficiency", "\(Self.number(perCPU)) messages per server CPU-second")
            }
        }
        out += line("result", report.passed ? "PASS" : "FAIL")
        return out
    }

    private func line(_ label: String, _ text: String) -> String {
        pad(label, 14) + text + "\n"
    }

    private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }

    /// A number with at most one decimal for small values, none for large ones.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        if value < 0 { return "-" + number(-value) }
        if abs(value) >= 100 { return String(Int(value.rounded())) }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// Bytes in B, KiB, MiB or GiB.
    static func bytes(_ value: Double) -> String {
        let units = ["B", "KiB", "MiB", "GiB"]
        var scaled = value
        var unit = 0
        while abs(scaled) >= 1024 && unit < units.count - 1 {
            scaled /= 1024
            unit += 1
        }
        return "\(number(scaled)) \(units[unit])"
    }
}
