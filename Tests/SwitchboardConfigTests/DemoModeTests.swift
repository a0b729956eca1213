import Testing
@testable import SwitchboardConfig

/// `server.demo`: `auto` serves the demo only in standalone mode without an app backend; `on`/`off` force it.
@Suite struct DemoModeTests {
    @Test func autoFollowsStandaloneModeWithoutAPIKeys() throws {
        #expect(SwitchboardConfiguration().demoEnabled)
        #expect(!(try SwitchboardConfiguration.parse("[auth]\nstandalone = false\n", fileName: "t")).demoEnabled)
        #expect(!(try SwitchboardConfiguration.parse("[auth]\napi_keys = [\"0123456789abcdef0\"]\n", fileName: "t")).demoEnabled)
    }

    @Test func onAndOffWin() throws {
        #expect(try SwitchboardConfiguration.parse("[server]\ndemo = \"on\"\n[auth]\nstandalone = false\n", fileName: "t").demoEnabled)
        #expect(!(try SwitchboardConfiguration.parse("[server]\ndemo = \"off\"\n", fileName: "t")).demoEnabled)
    }
}
