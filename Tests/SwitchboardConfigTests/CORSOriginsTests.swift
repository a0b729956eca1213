import Testing
@testable import SwitchboardConfig

/// `http.cors_allowed_origins`: `"auto"` is any origin in standalone mode and none with an app backend; a list wins.
@Suite struct CORSOriginsTests {
    @Test func autoIsAnyOriginInStandaloneModeOnly() throws {
        #expect(SwitchboardConfiguration().http.corsAllowedOrigins == .auto)
        #expect(SwitchboardConfiguration().corsAllowedOrigins == ["*"])
        #expect(try SwitchboardConfiguration.parse("[auth]\nstandalone = false\n", fileName: "t").corsAllowedOrigins == [])
        #expect(try SwitchboardConfiguration.parse("[auth]\napi_keys = [\"0123456789abcdef0\"]\n", fileName: "t").corsAllowedOrigins == [])
    }

    @Test func anExplicitListWins() throws {
        let text = "[http]\ncors_allowed_origins = [\"https://app.example.com\", \"http://localhost:5173\"]\n[auth]\napi_keys = [\"0123456789abcdef0\"]\n"
        #expect(try SwitchboardConfiguration.parse(text, fileName: "t").corsAllowedOrigins == ["https://app.example.com", "http://localhost:5173"])
        #expect(try SwitchboardConfiguration.parse("[http]\ncors_allowed_origins = []\n", fileName: "t").corsAllowedOrigins == [])
        #expect(try SwitchboardConfiguration.parse("[http]\ncors_allowed_origins = \"auto\"\n", fileName: "t").http.corsAllowedOrigins == .auto)
    }

    @Test(arguments: [
        ("cors_allowed_origins = \"*\"", "expected \"auto\" or an array of origins"),
        ("cors_allowed_origins = true", "got true"),
        ("cors_allowed_origins = [\"https://app.example.com/\"]", "got \"https://app.example.com/\""),
        ("cors_allowed_origins = [\"app.example.com\"]", "scheme://host[:port]"),
        ("cors_allowed_origins = [\"null\"]", "got \"null\""),
        ("cors_allowed_origins = [\"https://a b\"]", "got \"https://a b\""),
    ])
    func badValuesNameKeyAndLine(line: String, messagePart: String) throws {
        do {
            _ = try SwitchboardConfiguration.parse("[http]\n\(line)\n", fileName: "t.toml")
            Issue.record("expected an error for \(line)")
        } catch {
            #expect(error.line == 2 && error.key == "http.cors_allowed_origins", "\(error)")
            #expect(error.message.contains(messagePart), "\(error.message)")
        }
    }
}
