/// `http.cors_allowed_origins`: which web pages on other origins may call the gateway's browser endpoints
/// (`/v1/devices/register`, `/v1/users/me/…`) — the `Access-Control-Allow-Origin` policy.
public enum CORSOrigins: Sendable, Equatable {
    /// `"auto"` (default): any origin (`*`) in standalone mode, where the gateway registers devices itself and a
    /// web app on its own origin is the normal case; none with an app backend (`auth.api_keys`), whose web app is
    /// expected to be listed explicitly.
    case auto
    /// An explicit list: exact origins such as `https://app.example.com`, or `*` for any; empty for none.
    case list([String])

    /// The allowed origins once `auto` is resolved against the auth settings (`*` means any).
    public func resolved(standalone: Bool) -> [String] {
        switch self {
        case .auto: return standalone ? ["*"] : []
        case .list(let origins): return origins
        }
    }

    /// What one list item must be: `*`, or `scheme://host[:port]` as a browser serializes an Origin (RFC 6454 §6.1:
    /// no path, no trailing slash). `null` (sandboxed frames, file: pages) is refused: any page can produce it.
    static func isValidItem(_ text: String) -> Bool {
        if text == "*" { return true }
        guard let schemeEnd = text.firstRange(of: "://") else { return false }
        let scheme = text[..<schemeEnd.lowerBound], authority = text[schemeEnd.upperBound...]
        guard !scheme.isEmpty, scheme.utf8.allSatisfy({ byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || "+-.".utf8.contains(byte)
        }) else { return false }
        return !authority.isEmpty && authority.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }
    }

    static let itemRule = "\"*\" or an exact origin such as \"https://app.example.com\" (scheme://host[:port], no path)"
}

extension SwitchboardConfiguration {
    /// `http.cors_allowed_origins` resolved: standalone mode is `auth.standalone` without `auth.api_keys`.
    public var corsAllowedOrigins: [String] {
        http.corsAllowedOrigins.resolved(standalone: standaloneEnabled && auth.apiKeys.isEmpty)
    }
}
