import Foundation
import Testing
@testable import switchboard_load

/// Latency histograms, their wire form between workers and the parent, and stats merging.
struct HistogramAndStatsTests {
    @Test func percentilesFollowTheRecordedValues() {
        var histogram = LatencyHistogram()
        for value in 1...1000 { histogram.record(microseconds: UInt64(value)) }
        let summary = histogram.summary
        #expect(summary.count == 1000)
        #expect((495...505).contains(summary.p50))
        #expect((985...995).contains(summary.p99))
        #expect((999...1001).contains(summary.max))
    }

    @Test func valuesAboveSixtySecondsAreClampedNotDropped() {
        var histogram = LatencyHistogram()
        histogram.record(microseconds: 120_000_000)
        #expect(histogram.count == 1)
        #expect(histogram.summary.max >= 59_000_000)
    }

    @Test func encodingRoundTripKeepsTheDistribution() throws {
        var histogram = LatencyHistogram()
        var random = FastRandom(seed: 7)
        for _ in 0..<5000 { histogram.record(microseconds: 1 + random.next() % 200_000) }
        let data = try JSONEncoder().encode(histogram)
        let decoded = try JSONDecoder().decode(LatencyHistogram.self, from: data)
        #expect(decoded.count == histogram.count)
        for percentile in [50.0, 90, 99, 99.9, 100] {
            let a = histogram.value(atPercentile: percentile), b = decoded.value(atPercentile: percentile)
            // Exact within HdrHistogram's resolution: both values fall in the same bucket.
            #expect(histogram.histogram.valuesAreEquivalent(a, b), "p\(percentile): \(a) vs \(b)")
        }
    }

    @Test func statsMergeAddsCountsAndErrorKinds() {
        var a = LoadStats()
        a.messagesReceived = 10
        a.count(error: "connect_refused")
        a.roundTripLatency.record(microseconds: 100)
        a.activeSeconds = 2
        var b = LoadStats()
        b.messagesReceived = 5
        b.echoesLost = 1
        b.count(error: "connect_refused")
        b.count(error: "close_timeout")
        b.roundTripLatency.record(microseconds: 300)
        b.activeSeconds = 3
        a.merge(b)
        #expect(a.messagesReceived == 15)
        #expect(a.errors == ["connect_refused": 2, "close_timeout": 1])
        #expect(a.errorCount == 3)
        #expect(a.hasVerificationFailures)
        #expect(a.roundTripLatency.count == 2)
        #expect(a.activeSeconds == 3)
    }

    @Test func workerMessagesSurviveTheirLineFormat() throws {
        var stats = LoadStats()
        stats.connectsSucceeded = 42
        stats.upgradeLatency.record(microseconds: 1234)
        let line = WorkerMessage.result(stats).encodedLine()
        #expect(line.last == 0x0A)
        #expect(!line.dropLast().contains(0x0A), "one message must be one line")
        guard case .result(let decoded)? = WorkerMessage.decode(line: line.dropLast()) else {
            Issue.record("result line did not decode")
            return
        }
        #expect(decoded.connectsSucceeded == 42)
        #expect(decoded.upgradeLatency.count == 1)
        #expect(WorkerMessage.decode(line: Array("not json".utf8)[...]) == nil)
    }

    @Test(arguments: [(10, 3), (7, 7), (100, 1), (5, 2)])
    func sharesCoverTheTotalWithoutOverlap(_ total: Int, _ parts: Int) {
        var next = 0
        for part in 0..<parts {
            let share = RunPlan.share(of: total, part: part, parts: parts)
            #expect(share.offset == next)
            next += share.count
        }
        #expect(next == total)
    }
}
