/// The `[log]` section: what the gateway writes to standard error and how.
public struct LogSection: Sendable, Equatable {
    /// `log.level`: least severe level written.
    public var level: LogLevelName = .info
    /// `log.format`: `text` or `json`.
    public var format: LogFormatName = .text

    /// The embedded defaults.
    public init() {}
}
