import Foundation
import Glibc
import Testing

/// `config/grafana/switchboard.json` and the metrics table of docs/OPERATIONS.md against a real scrape of the
/// executable: every family `/metrics` exports is charted and documented, and the dashboard asks for nothing the
/// server does not export. A metric added, renamed or removed without the dashboard fails here.
@Suite struct MetricsDashboardTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every PromQL expression of the dashboard's panels (rows included).
    static func expressions(_ dashboard: [String: Any]) -> [String] {
        func walk(_ panels: [[String: Any]]) -> [String] {
            panels.flatMap { panel in
                ((panel["targets"] as? [[String: Any]]) ?? []).compactMap { $0["expr"] as? String }
                    + walk((panel["panels"] as? [[String: Any]]) ?? [])
            }
        }
        return walk((dashboard["panels"] as? [[String: Any]]) ?? [])
    }

    /// Metric names in a PromQL expression: `switchboard_…` and `process_…` identifiers.
    static func names(in expression: String) -> Set<String> {
        var names: Set<String> = []
        var current = ""
        for ch in expression + " " {
            if ch.isLetter || ch.isNumber || ch == "_" { current.append(ch); continue }
            if current.hasPrefix("switchboard_") || current.hasPrefix("process_") { names.insert(current) }
            current = ""
        }
        return names
    }

    /// The family a series name belongs to (a histogram's `_bucket`, `_sum` and `_count` belong to it).
    static func family(of name: String, in families: [String: String]) -> String? {
        if families[name] != nil { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if families[base] == "histogram" { return base }
        }
        return nil
    }

    @Test(.timeLimit(.minutes(1))) func theDashboardAndTheDocsCoverExactlyWhatTheServerExports() throws {
        try #require(FileManager.default.isExecutableFile(atPath: GatewayProcess.executable), "build the switchboard executable first")
        let directory = try TemporaryDirectory()
        let (process, port) = try GatewayProcess.launch(directory: directory)
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        let families = try MetricsScrape.fetch(port: port).families
        #expect(families.count > 40)

        let data = try Data(contentsOf: Self.root.appendingPathComponent("config/grafana/switchboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let expressions = Self.expressions(dashboard)
        #expect(!expressions.isEmpty)
        var charted: Set<String> = []
        for expression in expressions {
            for name in Self.names(in: expression) {
                if let family = Self.family(of: name, in: families) {
                    charted.insert(family)
                } else {
                    Issue.record("the dashboard queries \(name), which /metrics does not export: \(expression)")
                }
            }
        }
        let uncharted = Set(families.keys).subtracting(charted).sorted()
        #expect(uncharted.isEmpty, "exported but not on config/grafana/switchboard.json: \(uncharted)")

        let operations = try String(contentsOf: Self.root.appendingPathComponent("docs/OPERATIONS.md"), encoding: .utf8)
        let undocumented = families.keys.filter { !operations.contains("`\($0)") }.sorted()
        #expect(undocumented.isEmpty, "exported but not in docs/OPERATIONS.md: \(undocumented)")
    }

    @Test func namesAndFamiliesAreFoundInExpressions() {
        let names = Self.names(in: #"sum(rate(switchboard_push_delivery_seconds_bucket{le="5"}[5m])) / process_open_fds"#)
        #expect(names == ["switchboard_push_delivery_seconds_bucket", "process_open_fds"])
        let families = ["switchboard_push_delivery_seconds": "histogram", "switchboard_x_total": "counter"]
        #expect(Self.family(of: "switchboard_push_delivery_seconds_bucket", in: families) == "switchboard_push_delivery_seconds")
        #expect(Self.family(of: "switchboard_x_total", in: families) == "switchboard_x_total")
        #expect(Self.family(of: "switchboard_x_total_count", in: families) == nil)   // not a histogram
        #expect(Self.family(of: "switchboard_y", in: families) == nil)
    }
}
