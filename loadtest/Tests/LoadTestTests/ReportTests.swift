import Foundation
import Testing
@testable import switchboard_load

/// The text table and the self-contained HTML report.
struct ReportTests {
    private func makeReport(lost: Int, errors: [String: Int] = [:]) throws -> LoadReport {
        var stats = LoadStats()
        stats.connectAttempts = 3
        stats.connectsSucceeded = 3
        stats.messagesReceived = 900
        stats.messagesSent = 900 + lost
        stats.activeSeconds = 3
        stats.echoesLost = lost
        stats.errors = errors
        for value in [100, 200, 300] { stats.upgradeLatency.record(microseconds: UInt64(value)) }
        for value in 1...900 { stats.roundTripLatency.record(microseconds: UInt64(value)) }
        let options = try CommonOptions.parse(["--connections", "3", "--url", "ws://127.0.0.1:1/"])
        let samples = (1...3).map {
            LoadReport.SecondSample(elapsedSeconds: Double($0), open: 3, messagesPerSecond: 300, errors: 0,
                                    serverCPUPercent: nil, serverRSSBytes: nil)
        }
        return LoadReport(scenario: EchoScenario(size: 20, depth: 1), options: options, stats: stats,
                          wallSeconds: 3.2, samples: samples, server: nil)
    }

    @Test func passingRunShowsPercentilesAndThroughput() throws {
        let report = try makeReport(lost: 0)
        #expect(report.passed)
        #expect(report.messagesPerSecond == 300)
        let text = TextReport(report: report).render()
        #expect(text.contains("round_trip"))
        #expect(text.contains("p99.9"))
        #expect(text.contains("300 msg/s"))
        #expect(text.contains("PASS"))
    }

    @Test func lossOrErrorsFailTheRun() throws {
        #expect(try !makeReport(lost: 1).passed)
        let failed = try makeReport(lost: 0, errors: ["connect_refused": 2])
        #expect(!failed.passed)
        #expect(TextReport(report: failed).render().contains("connect_refused 2"))
    }

    @Test func htmlIsSelfContainedWithItsCharts() throws {
        let html = HTMLReport(report: try makeReport(lost: 0)).render()
        #expect(html.components(separatedBy: "<svg").count - 1 == 4)   // no --server-pid: no CPU or RSS chart
        #expect(html.contains("<polyline"))
        for external in ["<script", "src=", "href=", "@import", "url("] {
            #expect(!html.contains(external), "external reference: \(external)")
        }
    }

    @Test func htmlEscapes() {
        #expect(HTMLReport.escape("<a href=\"x\">&") == "&lt;a href=&quot;x&quot;&gt;&amp;")
    }
}

/// Round axis ticks for the HTML charts, and the charts over time.
struct ChartTests {
    @Test func ticksAreRoundStepsFromZeroPastTheMaximum() {
        #expect(AxisTicks(maximum: 937).values == [0, 200, 400, 600, 800, 1000])
        #expect(AxisTicks(maximum: 10_000).values == [0, 2000, 4000, 6000, 8000, 10_000])
        #expect(AxisTicks(maximum: 7.3).values == [0, 2, 4, 6, 8])
        #expect(AxisTicks(maximum: 12).values == [0, 2.5, 5, 7.5, 10, 12.5])
        #expect(AxisTicks(maximum: 0.42).values.count == 6)            // 0 … 0.5 by 0.1
        #expect(AxisTicks(maximum: 0.42).maximum == 0.5)
        #expect(AxisTicks(maximum: 0).values == [0, 0.2, 0.4, 0.6, 0.8, 1])   // nothing yet: a unit axis
        #expect(AxisTicks(maximum: 0, whole: true).values == [0, 1])           // counts: no 0.2 errors
        #expect(AxisTicks(maximum: 3, whole: true).values == [0, 1, 2, 3])
        #expect(AxisTicks(maximum: 58_000_000).values == [0, 20_000_000, 40_000_000, 60_000_000])
        for maximum in [1.0, 3, 9.99, 101, 4321, 0.07] {
            let ticks = AxisTicks(maximum: maximum)
            #expect(ticks.maximum >= maximum && ticks.values.count >= 2 && ticks.values.count <= 7, "\(maximum): \(ticks.values)")
        }
    }

    @Test func tickLabelsHaveNoNoise() {
        let ticks = AxisTicks(maximum: 0.42)
        #expect(ticks.values.map(ticks.label) == ["0", "0.1", "0.2", "0.3", "0.4", "0.5"])
        let quarter = AxisTicks(maximum: 12)
        #expect(quarter.values.map(quarter.label) == ["0", "2.5", "5", "7.5", "10", "12.5"])
        let small = AxisTicks(maximum: 0.07)
        #expect(small.values.map(small.label).contains("0.02"))
    }

    private func report(serverSamples: Bool) throws -> LoadReport {
        var stats = LoadStats()
        stats.connectAttempts = 100
        stats.connectsSucceeded = 97
        stats.errors = ["connect_refused": 3]
        let options = try CommonOptions.parse(["--connections", "100", "--url", "ws://127.0.0.1:1/"])
        let samples = (1...9).map { second in
            LoadReport.SecondSample(elapsedSeconds: Double(second) + 0.013, open: min(97, second * 13), messagesPerSecond: 0,
                                    errors: second > 4 ? 3 : 0, serverCPUPercent: serverSamples && second > 1 ? 37.5 : nil,
                                    serverRSSBytes: serverSamples ? 40_000_000 + second * 1_000_000 : nil)
        }
        return LoadReport(scenario: EchoScenario(size: 20, depth: 1), options: options, stats: stats,
                          wallSeconds: 9.5, samples: samples, server: nil)
    }

    /// The labels of a chart's axis ticks: the `<text>` contents of the SVG element with `aria-label`.
    private func chart(_ label: String, in html: String) -> String? {
        guard let start = html.range(of: "aria-label=\"\(label)\"") else { return nil }
        let rest = html[start.lowerBound...]
        return String(rest[..<(rest.range(of: "</svg>")?.lowerBound ?? rest.endIndex)])
    }

    @Test func htmlChartsConnectionsErrorsAndServerCPUAndMemoryOverTime() throws {
        let html = HTMLReport(report: try report(serverSamples: true)).render()
        #expect(html.components(separatedBy: "<svg").count - 1 == 5)   // throughput, connections, errors, CPU, RSS (no latencies)
        for heading in ["Connections open over time", "Errors over time", "CPU (% of one core)", "Resident memory (MiB)"] {
            #expect(html.contains(heading), "missing \(heading)")
        }
        // Round ticks: connections up to 97 → 0…100 by 20; time up to 9.013 s → 0…10 s by 2; RSS 41–49 MiB → 0…50 by 10.
        let connections = try #require(chart("connections", in: html))
        for label in [">0<", ">20<", ">100<", ">10 s<"] { #expect(connections.contains(label), "connections axis lacks \(label)") }
        #expect(!connections.contains(">97<"))
        let rss = try #require(chart("MiB", in: html))
        for label in [">10<", ">50<"] { #expect(rss.contains(label), "RSS axis lacks \(label)") }
        let cpu = try #require(chart("%", in: html))
        #expect(cpu.contains("server CPU") && cpu.contains("<polyline"))
        let errors = try #require(chart("errors", in: html))
        #expect(errors.contains(">3<") && !errors.contains(">0.5<"))
    }

    @Test func withoutAServerPidTheServerChartsSayHowToGetThem() throws {
        let html = HTMLReport(report: try report(serverSamples: false)).render()
        #expect(html.components(separatedBy: "<svg").count - 1 == 3)   // throughput, connections, errors
        #expect(html.contains("--server-pid"))
    }
}
