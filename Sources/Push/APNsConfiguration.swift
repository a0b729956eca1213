/// How to reach APNs and authenticate with a provider token (`.p8` signing key).
public struct APNsConfiguration: Sendable {
    /// APNs' two environments; development builds of an app get sandbox tokens.
    public enum Environment: String, Sendable {
        case production
        case sandbox

        /// The provider API base URL of this environment.
        public var baseURL: String {
            switch self {
            case .production: return "https://api.push.apple.com"
            case .sandbox: return "https://api.sandbox.push.apple.com"
            }
        }
    }

    /// The 10-character Team ID: the provider token's `iss`.
    public var teamID: String
    /// The 10-character key ID of the `.p8` key: the provider token's `kid`.
    public var keyID: String
    /// The `.p8` file's contents (PKCS#8 PEM, P-256).
    public var privateKeyPEM: String
    /// The app's bundle ID: `apns-topic`, with `.push-type.liveactivity` appended for Live Activities.
    public var bundleID: String
    /// Which APNs environment to use (ignored when ``endpoint`` is set).
    public var environment: Environment
    /// Replaces the environment's base URL, e.g. `https://127.0.0.1:8443` in tests.
    public var endpoint: String?
    /// PEM CA bundle replacing the system trust store (tests trust their self-signed certificate).
    public var caFile: String?
    /// Per-request timeout, connection set-up included.
    public var timeoutMilliseconds: Int

    public init(teamID: String, keyID: String, privateKeyPEM: String, bundleID: String,
                environment: Environment = .production, endpoint: String? = nil, caFile: String? = nil,
                timeoutMilliseconds: Int = 15_000) {
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
        self.bundleID = bundleID
        self.environment = environment
        self.endpoint = endpoint
        self.caFile = caFile
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// The base URL requests go to, without a trailing slash.
    public var baseURL: String {
        var url = endpoint ?? environment.baseURL
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
