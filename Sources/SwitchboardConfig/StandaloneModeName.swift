/// The `auth.standalone` setting: whether devices may create their own identities (`POST /v1/devices/register`).
/// Written `true`, `false` or `"auto"` (the default).
public enum StandaloneModeName: String, Sendable, CaseIterable {
    /// On without `auth.api_keys` (no app backend: self-registration is the only way in), off with them.
    case auto
    /// `true`: always served, also beside an app backend.
    case on
    /// `false`: never served.
    case off
}

extension SwitchboardConfiguration {
    /// Whether `POST /v1/devices/register` is served: `auth.standalone`, with `auto` resolved against the API keys. An
    /// operator with an app backend (API keys) issues identities through it, so anyone minting identities on that
    /// gateway (each with its own guessing and discovery allowances) is off unless asked for.
    public var standaloneEnabled: Bool {
        switch auth.standalone {
        case .on: return true
        case .off: return false
        case .auto: return auth.apiKeys.isEmpty
        }
    }

    /// One line for `switchboard check-config`: the resolved `auth.standalone` and why.
    public var standaloneExplanation: String {
        switch auth.standalone {
        case .on: return "auth.standalone = true: devices may register themselves (POST /v1/devices/register)"
        case .off: return "auth.standalone = false: self-registration is off (POST /v1/devices/register answers 404)"
        case .auto where auth.apiKeys.isEmpty:
            return "auth.standalone = \"auto\": on, since auth.api_keys is empty (devices register themselves)"
        case .auto:
            return "auth.standalone = \"auto\": off, since auth.api_keys is set (identities come from the app backend; "
                + "set auth.standalone = true to let devices register themselves as well)"
        }
    }
}
