import Glibc
import JSON
import Logging

/// One JSON object per line on stderr, for log shippers (log.format = "json").
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let (level, message, extra) = (event.level, event.message, event.metadata)
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let millis = Int(ts.tv_sec) * 1000 + Int(ts.tv_nsec) / 1_000_000
        var fields = ["\"ts\":\(millis)", "\"level\":\(quote(level.rawValue))", "\"logger\":\(quote(label))",
                      "\"msg\":\(quote(message.description))"]
        for (key, value) in metadata.merging(extra ?? [:], uniquingKeysWith: { $1 }) {
            fields.append("\(quote(key)):\(quote(value.description))")
        }
        let line = "{" + fields.joined(separator: ",") + "}\n"
        // One write(2) per line so lines from several threads never interleave.
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    private func quote(_ s: String) -> String {
        JSONString.quoted(s)
    }
}
