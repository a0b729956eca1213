/// The `log.level` setting: the least severe level that is still written.
///
/// Same names and order as swift-log's `Logger.Level`, so the server maps them one to one;
/// this target does not depend on swift-log to stay a dependency-free leaf.
public enum LogLevelName: String, Sendable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}
