import Foundation

/// One `/metrics` scrape, parsed: sample values by series (`name` or `name{labels}` exactly as printed) and the
/// families declared by `# TYPE` lines.
struct MetricsScrape {
    let samples: [String: Double]
    let families: [String: String]

    init(text: String) {
        var samples: [String: Double] = [:]
        var families: [String: String] = [:]
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { families[String(parts[2])] = String(parts[3]) }
            } else if !line.hasPrefix("#"), let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) {
                samples[String(line[..<space])] = value
            }
        }
        self.samples = samples
        self.families = families
    }

    /// GET /metrics on a local server.
    static func fetch(port: UInt16) throws -> MetricsScrape {
        let client = try RawClient(port: port, timeoutSeconds: 10)
        client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let response = try client.readResponse()
        guard response.head.status == 200 else { throw TestFailure("/metrics answered \(response.head.status)") }
        return MetricsScrape(text: String(decoding: response.body, as: UTF8.self))
    }

    /// The value of a series; a missing series fails the test with its name.
    func value(_ series: String) throws -> Double {
        guard let value = samples[series] else { throw TestFailure("/metrics has no series \(series)") }
        return value
    }

    /// How much `series` grew since `earlier`.
    func delta(_ series: String, since earlier: MetricsScrape) throws -> Double {
        try value(series) - (earlier.samples[series] ?? 0)
    }
}
