/// A self-contained HTML page for one run: the summary table, an inline SVG latency-percentile chart (log scale on
/// both axes: 0, 90, 99, 99.9, 99.99 %) and, from the per-second samples, inline SVG charts over time of throughput,
/// open connections, errors and (with `--server-pid`) the server's CPU and RSS, with round axis ticks.
/// No scripts, fonts, stylesheets or images from anywhere else: it opens offline. Pure formatting; no I/O.
struct HTMLReport {
    let report: LoadReport

    private static let width = 720.0
    private static let height = 300.0
    private static let margin = (left: 70.0, right: 20.0, top: 20.0, bottom: 40.0)
    private static let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]

    /// The whole page.
    func render() -> String {
        let title = "switchboard-load \(report.scenario) — \(report.url)"
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(Self.escape(title))</title>
            <style>body{font:14px system-ui,sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}
            td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:right}td:first-child,th:first-child{text-align:left}
            .pass{color:#2a7d2a}.fail{color:#b00020}svg{background:#fafafa;border:1px solid #ddd}</style></head><body>
            <h1>\(Self.escape(title))</h1>
            <p class="\(report.passed ? "pass" : "fail")"><b>\(report.passed ? "PASS" : "FAIL")</b> —
            \(report.connectsSucceeded)/\(report.connections) connections,
            \(TextReport.number(report.messagesPerSecond)) msg/s, errors: \(Self.escape(errorText))</p>
            <pre>\(Self.escape(TextReport(report: report).render()))</pre>
            <h2>Latency by percentile (µs)</h2>
            \(latencyChart())
            <h2>Throughput over time (messages received per second)</h2>
            \(throughputChart())
            <h2>Connections open over time</h2>
            \(connectionsChart())
            <h2>Errors over time (cumulative)</h2>
            \(errorsChart())
            <h2>Server CPU and memory over time</h2>
            \(serverCharts())
            </body></html>

            """
    }

    private var errorText: String {
        report.errors.isEmpty ? "none" : report.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            .joined(separator: ", ")
    }

    /// x = -log10(1 - p/100) (0 % at 0, 90 % at 1, 99 % at 2, …), y = log10(µs).
    private func latencyChart() -> String {
        let metrics = report.latencyCurves.keys.sorted()
        let points = metrics.flatMap { report.latencyCurves[$0]! }
        guard !points.isEmpty else { return "<p>No latency values were recorded.</p>" }
        let xOf = { (p: Double) in -log10(max(1e-5, 1 - p / 100)) }
        let xMax = 5.0
        let yMax = max(1, log10(Double(points.map(\.microseconds).max()!) * 1.2))
        var svg = Self.frame(label: "latency µs")
        for (tick, label) in [(0.0, "0%"), (1, "90%"), (2, "99%"), (3, "99.9%"), (4, "99.99%"), (5, "max")] {
            let x = Self.x(tick, max: xMax)
            svg += Self.gridLine(x1: x, y1: Self.margin.top, x2: x, y2: Self.height - Self.margin.bottom)
            svg += Self.text(label, x: x, y: Self.height - Self.margin.bottom + 16, anchor: "middle")
        }
        var decade = 0.0
        while decade <= yMax {
            let y = Self.y(decade, max: yMax)
            svg += Self.gridLine(x1: Self.margin.left, y1: y, x2: Self.width - Self.margin.right, y2: y)
            svg += Self.text(String(Int(pow10(decade))), x: Self.margin.left - 6, y: y + 4, anchor: "end")
            decade += 1
        }
        for (index, metric) in metrics.enumerated() {
            let color = Self.colors[index % Self.colors.count]
            let coordinates = report.latencyCurves[metric]!.map { point in
                let x = point.percentile >= 100 ? xMax : min(xOf(point.percentile), xMax - 0.2)
                return (Self.x(x, max: xMax), Self.y(log10(Double(max(1, point.microseconds))), max: yMax))
            }
            svg += Self.polyline(coordinates, color: color)
            svg += Self.text(metric, x: Self.margin.left + 10, y: Self.margin.top + 16 + Double(index) * 16,
                             anchor: "start", color: color)
        }
        return svg + "</svg>"
    }

    private func throughputChart() -> String {
        timeChart(unit: "msg/s", series: [("messages received", report.samples.map { ($0.elapsedSeconds, $0.messagesPerSecond) })])
    }

    private func connectionsChart() -> String {
        timeChart(unit: "connections", whole: true, series: [("open", report.samples.map { ($0.elapsedSeconds, Double($0.open)) })])
    }

    private func errorsChart() -> String {
        timeChart(unit: "errors", whole: true, series: [("errors so far", report.samples.map { ($0.elapsedSeconds, Double($0.errors)) })])
    }

    /// Server CPU (% of one core) and RSS (MiB), from `--server-pid`; the first sample has no CPU figure yet.
    private func serverCharts() -> String {
        let cpu = report.samples.compactMap { s in s.serverCPUPercent.map { (s.elapsedSeconds, $0) } }
        let rss = report.samples.compactMap { s in s.serverRSSBytes.map { (s.elapsedSeconds, Double($0) / 1_048_576) } }
        guard !rss.isEmpty else { return "<p>Run with <code>--server-pid PID</code> to chart the server's CPU and memory.</p>" }
        return "<h3>CPU (% of one core)</h3>\n" + timeChart(unit: "%", series: [("server CPU", cpu)])
            + "\n<h3>Resident memory (MiB)</h3>\n" + timeChart(unit: "MiB", series: [("server RSS", rss)])
    }

    /// A line chart over the run's seconds with round ticks on both axes (`AxisTicks`); `whole` for counts.
    private func timeChart(unit: String, whole: Bool = false, series: [(name: String, points: [(Double, Double)])]) -> String {
        let all = series.flatMap(\.points)
        guard !all.isEmpty else { return "<p>The run was shorter than one second: no samples.</p>" }
        let xTicks = AxisTicks(maximum: all.map(\.0).max()!)
        let yTicks = AxisTicks(maximum: all.map(\.1).max()!, whole: whole)
        var svg = Self.frame(label: unit)
        for value in yTicks.values {
            let y = Self.y(value, max: yTicks.maximum)
            svg += Self.gridLine(x1: Self.margin.left, y1: y, x2: Self.width - Self.margin.right, y2: y)
            svg += Self.text(yTicks.label(value), x: Self.margin.left - 6, y: y + 4, anchor: "end")
        }
        for value in xTicks.values {
            svg += Self.text("\(xTicks.label(value)) s", x: Self.x(value, max: xTicks.maximum),
                             y: Self.height - Self.margin.bottom + 16, anchor: "middle")
        }
        for (index, line) in series.enumerated() where !line.points.isEmpty {
            let color = Self.colors[index % Self.colors.count]
            svg += Self.polyline(line.points.map { (Self.x($0.0, max: xTicks.maximum), Self.y($0.1, max: yTicks.maximum)) }, color: color)
            svg += Self.text(line.name, x: Self.margin.left + 10, y: Self.margin.top + 16 + Double(index) * 16, anchor: "start", color: color)
        }
        return svg + "</svg>"
    }

    // MARK: SVG helpers

    /// `label` names the chart for tests and screen readers (`aria-label`).
    private static func frame(label: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" " +
            "viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(escape(label))\">"
    }

    private static func x(_ value: Double, max: Double) -> Double {
        margin.left + value / max * (width - margin.left - margin.right)
    }

    private static func y(_ value: Double, max: Double) -> Double {
        height - margin.bottom - value / max * (height - margin.top - margin.bottom)
    }

    private static func gridLine(x1: Double, y1: Double, x2: Double, y2: Double) -> String {
        "<line x1=\"\(fmt(x1))\" y1=\"\(fmt(y1))\" x2=\"\(fmt(x2))\" y2=\"\(fmt(y2))\" stroke=\"#ddd\"/>"
    }

    private static func text(_ text: String, x: Double, y: Double, anchor: String, color: String = "#333") -> String {
        "<text x=\"\(fmt(x))\" y=\"\(fmt(y))\" text-anchor=\"\(anchor)\" font-size=\"11\" fill=\"\(color)\">" +
            escape(text) + "</text>"
    }

    private static func polyline(_ points: [(Double, Double)], color: String) -> String {
        let list = points.map { "\(fmt($0.0)),\(fmt($0.1))" }.joined(separator: " ")
        return "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(list)\"/>"
    }

    private static func fmt(_ value: Double) -> String {
        String(Double(Int((value * 10).rounded())) / 10)
    }

    /// Escapes text for HTML element content and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}

private func log10(_ value: Double) -> Double { Double.log10(value) }
private func pow10(_ value: Double) -> Double { Double.pow(10, value) }
