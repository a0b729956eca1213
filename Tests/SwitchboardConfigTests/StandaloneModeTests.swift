import Testing
@testable import SwitchboardConfig

/// `auth.standalone`: `"auto"` (the default) lets devices register themselves only without an app backend (no
/// `auth.api_keys`); `true`/`false` force it; anything else names the key and line.
@Suite struct StandaloneModeTests {
    static let apiKeys = "api_keys = [\"0123456789abcdef0\"]\n"

    @Test func autoIsOnWithoutAPIKeysAndOffWithThem() throws {
        #expect(SwitchboardConfiguration().auth.standalone == .auto)
        #expect(SwitchboardConfiguration().standaloneEnabled)
        let backend = try SwitchboardConfiguration.parse("[auth]\n" + Self.apiKeys, fileName: "t")
        #expect(!backend.standaloneEnabled)
        #expect(backend.standaloneExplanation.contains("off, since auth.api_keys is set"))
        let auto = try SwitchboardConfiguration.parse("[auth]\n" + Self.apiKeys + "standalone = \"auto\"\n", fileName: "t")
        #expect(!auto.standaloneEnabled)
    }

    @Test func explicitTrueAndFalseAreHonoured() throws {
        let on = try SwitchboardConfiguration.parse("[auth]\n" + Self.apiKeys + "standalone = true\n", fileName: "t")
        #expect(on.auth.standalone == .on && on.standaloneEnabled)
        #expect(on.standaloneExplanation.hasPrefix("auth.standalone = true"))
        let off = try SwitchboardConfiguration.parse("[auth]\nstandalone = false\n", fileName: "t")
        #expect(off.auth.standalone == .off && !off.standaloneEnabled)
    }

    @Test func otherValuesNameKeyAndLine() {
        #expect(throws: ConfigError(file: "t", line: 2, key: "auth.standalone", message: "expected true, false or \"auto\", got \"yes\"")) {
            try SwitchboardConfiguration.parse("[auth]\nstandalone = \"yes\"\n", fileName: "t")
        }
        #expect(throws: ConfigError(file: "t", line: 2, key: "auth.standalone", message: "expected true, false or \"auto\", got 1")) {
            try SwitchboardConfiguration.parse("[auth]\nstandalone = 1\n", fileName: "t")
        }
    }
}
