import Testing
@testable import SwitchboardConfig

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

/// Small deterministic generator (SplitMix64) so random-split tests reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
