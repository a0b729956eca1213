/// The `server.demo` setting: whether the gateway serves the `/demo` page and its demo-only endpoints.
public enum DemoModeName: String, Sendable, CaseIterable {
    /// On in standalone mode (`auth.standalone = true` and no `auth.api_keys`: no app backend), off otherwise.
    case auto
    /// Always served.
    case on
    /// Never served.
    case off
}

extension SwitchboardConfiguration {
    /// Whether `/demo` is served: `server.demo`, with `auto` resolved against the auth settings. A deployment with an
    /// app backend (API keys) has real users, so the demo's self-service endpoints stay off unless asked for.
    public var demoEnabled: Bool {
        switch server.demo {
        case .on: return true
        case .off: return false
        case .auto: return standaloneEnabled && auth.apiKeys.isEmpty
        }
    }
}
