import Histogram

/// A latency distribution in microseconds (HdrHistogram, 3 significant digits, 1 µs … 60 s; larger values are
/// clamped to 60 s and counted, never dropped).
///
/// Value type, not thread-safe: each loop records into its own and the coordinator merges them. Encodes as the
/// recorded (value, count) pairs only, so a worker's histogram crosses the pipe in a few KB instead of the full
/// counts array.
struct LatencyHistogram: Codable, Sendable {
    /// Upper bound of what can be recorded exactly: 60 s in microseconds.
    static let highestTrackableMicroseconds: UInt64 = 60_000_000

    private(set) var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 1, highestTrackableValue: LatencyHistogram.highestTrackableMicroseconds,
        numberOfSignificantValueDigits: .three)

    init() {}

    /// Number of values recorded.
    var count: UInt64 { histogram.totalCount }

    /// Records one latency in microseconds.
    @inline(__always)
    mutating func record(microseconds: UInt64) {
        _ = histogram.record(Swift.min(Swift.max(microseconds, 1), Self.highestTrackableMicroseconds))
    }

    /// Adds every value of `other` (merging loops and workers).
    mutating func merge(_ other: LatencyHistogram) {
        histogram.add(other.histogram)
    }

    /// The value at `percentile` (0…100), 0 when empty.
    func value(atPercentile percentile: Double) -> UInt64 {
        count == 0 ? 0 : histogram.valueAtPercentile(percentile)
    }

    /// The summary the report prints: p50/p90/p99/p99.9/max and mean.
    var summary: LatencySummary {
        LatencySummary(
            count: count,
            p50: value(atPercentile: 50), p90: value(atPercentile: 90), p99: value(atPercentile: 99),
            p999: value(atPercentile: 99.9), max: count == 0 ? 0 : histogram.max,
            mean: count == 0 ? 0 : histogram.mean)
    }

    /// Points of the percentile curve for charts: percentiles 0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100.
    var percentileCurve: [PercentilePoint] {
        guard count > 0 else { return [] }
        return [0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100].map {
            PercentilePoint(percentile: $0, microseconds: $0 == 100 ? histogram.max : histogram.valueAtPercentile($0))
        }
    }

    private enum CodingKeys: String, CodingKey { case values }

    /// Decodes the (value, count) pairs written by `encode(to:)`.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let pairs = try container.decode([[UInt64]].self, forKey: .values)
        for pair in pairs where pair.count == 2 {
            _ = histogram.record(Swift.min(pair[0], Self.highestTrackableMicroseconds), count: pair[1])
        }
    }

    /// Encodes the recorded values as `[[value, count], …]`.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var pairs: [[UInt64]] = []
        for item in histogram.recordedValues() {
            pairs.append([item.value, UInt64(item.count)])
        }
        try container.encode(pairs, forKey: .values)
    }
}

/// One point of a latency percentile curve.
struct PercentilePoint: Codable, Sendable, Equatable {
    var percentile: Double
    var microseconds: UInt64
}

/// The numbers the final table shows for one latency metric, all in microseconds.
struct LatencySummary: Codable, Sendable, Equatable {
    var count: UInt64
    var p50: UInt64
    var p90: UInt64
    var p99: UInt64
    var p999: UInt64
    var max: UInt64
    var mean: Double
}
