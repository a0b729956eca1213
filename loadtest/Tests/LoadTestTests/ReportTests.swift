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

    @Test func htmlIsSelfContainedWithTwoCharts() throws {
        let html = HTMLReport(report: try makeReport(lost: 0)).render()
        #expect(html.components(separatedBy: "<svg").count - 1 == 2)
        #expect(html.contains("<polyline"))
        for external in ["<script", "src=", "href=", "@import", "url("] {
            #expect(!html.contains(external), "external reference: \(external)")
        }
    }

    @Test func htmlEscapes() {
        #expect(HTMLReport.escape("<a href=\"x\">&") == "&lt;a href=&quot;x&quot;&gt;&amp;")
    }
}
