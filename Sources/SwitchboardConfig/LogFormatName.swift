/// The `log.format` setting: how each log record is rendered on standard error.
public enum LogFormatName: String, Sendable, CaseIterable {
    /// One human-readable line per record.
    case text
    /// One JSON object per line, for log shippers.
    case json
}
