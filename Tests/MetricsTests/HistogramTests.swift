import Testing
@testable import Metrics

/// Bucketing, rendering and the /proc readings that `/metrics` is built from.
@Suite struct HistogramTests {
    @Test func aValueOnABoundCountsInThatBucketAndNegativesCountAsZero() {
        let h = Histogram(bounds: [0.001, 0.01, 1], unitsPerSecond: 1_000_000)
        h.observe(1_000)        // exactly 1 ms: le="0.001" (Prometheus buckets are inclusive)
        h.observe(1_001)        // just above: le="0.01"
        h.observe(-5)           // a clock step backwards: 0
        h.observe(2_000_000)    // above every bound: +Inf only
        let (cumulative, sum) = h.snapshot()
        #expect(cumulative == [2, 3, 3, 4])
        #expect(sum == 1_000 + 1_001 + 0 + 2_000_000)
        #expect(h.count == 4)
    }

    @Test func renderingIsCumulativeInSecondsAndSumsSeveralHistograms() {
        let a = Histogram(bounds: [0.5, 5], unitsPerSecond: 1_000)
        let b = Histogram(bounds: [0.5, 5], unitsPerSecond: 1_000)
        a.observe(250)
        b.observe(4_000)
        b.observe(9_000)
        var text = PrometheusText()
        text.histogram("x_seconds", "Test.", series: [("loop=\"all\"", [a, b])])
        #expect(text.text == """
            # HELP x_seconds Test.
            # TYPE x_seconds histogram
            x_seconds_bucket{loop="all",le="0.5"} 1
            x_seconds_bucket{loop="all",le="5"} 2
            x_seconds_bucket{loop="all",le="+Inf"} 3
            x_seconds_sum{loop="all"} 13.25
            x_seconds_count{loop="all"} 3

            """)
    }

    @Test func countersAndNumbers() {
        let c = Counter()
        c.increment()
        c.increment(by: 41)
        var text = PrometheusText()
        text.single("n_total", "counter", "N.", c.value)
        text.single("cpu_seconds_total", "counter", "CPU.", 1.5)
        #expect(text.text.contains("n_total 42\n"))
        #expect(text.text.contains("cpu_seconds_total 1.5\n"))
        #expect(PrometheusText.number(5) == "5")
        #expect(PrometheusText.number(0.0025) == "0.0025")
    }

    @Test func thisProcessIsReadFromProc() throws {
        let stats = try #require(ProcessStats.read())
        #expect(stats.residentBytes > 1_000_000)
        #expect(stats.cpuSeconds >= 0)
        let fds = try #require(ProcessStats.openDescriptors())
        #expect(fds >= 3 && fds <= ProcessStats.maxDescriptors())
        #expect(ProcessStats.read(pid: 999_999_999) == nil)
        #expect(ProcessStats.cpuTicks(fromStat: "1 (a b) S 0 0 0 0 0 0 0 0 0 0 7 5 0") == 12)
    }
}
