import Testing
@testable import SwitchboardConfig
@_exported import TestSupport

/// The error `parse` throws for `text`, or `nil` (recorded as a test failure) when it parses.
func parseError(_ text: String, fileName: String = "test.toml",
                sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
    do {
        let config = try SwitchboardConfiguration.parse(text, fileName: fileName)
        Issue.record("expected an error, parsed \(config)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

