/// Builds Prometheus text exposition (format 0.0.4): `# HELP`/`# TYPE` once per family, then its samples.
public struct PrometheusText {
    public private(set) var text = ""

    public init() {}

    /// A family with one unlabelled sample.
    public mutating func single(_ name: String, _ type: String, _ help: String, _ value: Int) {
        header(name, type, help)
        text += "\(name) \(value)\n"
    }

    /// A family with one unlabelled sample that is not a whole number (seconds, ratios).
    public mutating func single(_ name: String, _ type: String, _ help: String, _ value: Double) {
        header(name, type, help)
        text += "\(name) \(Self.number(value))\n"
    }

    public mutating func header(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// A histogram family: one series per `(labels, histograms)`, the histograms of a series summed (e.g. one per
    /// event loop). `labels` is `key="value",…` or empty.
    public mutating func histogram(_ name: String, _ help: String, series: [(labels: String, histograms: [Histogram])]) {
        header(name, "histogram", help)
        for (labels, histograms) in series {
            guard let first = histograms.first else { continue }
            var cumulative = [Int](repeating: 0, count: first.bounds.count + 1)
            var sum = 0
            for histogram in histograms {
                let snapshot = histogram.snapshot()
                for i in cumulative.indices { cumulative[i] += snapshot.cumulative[i] }
                sum += snapshot.sum
            }
            let prefix = labels.isEmpty ? "" : labels + ","
            for (i, bound) in first.bounds.enumerated() {
                text += "\(name)_bucket{\(prefix)le=\"\(Self.number(bound))\"} \(cumulative[i])\n"
            }
            text += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(cumulative[first.bounds.count])\n"
            let braces = labels.isEmpty ? "" : "{\(labels)}"
            text += "\(name)_sum\(braces) \(Self.number(Double(sum) / Double(first.unitsPerSecond)))\n"
            text += "\(name)_count\(braces) \(cumulative[first.bounds.count])\n"
        }
    }

    /// A histogram family with one unlabelled series.
    public mutating func histogram(_ name: String, _ help: String, _ histogram: Histogram) {
        self.histogram(name, help, series: [("", [histogram])])
    }

    /// `5` rather than `5.0`, `0.005` as is: bucket labels as people write them in queries.
    public static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
