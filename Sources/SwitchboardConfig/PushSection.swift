/// `[push]`: the push providers used when a user has no connected device (docs/PUSH.md). A provider left empty is
/// off; jobs for it are dead-lettered with the reason.
public struct PushSection: Sendable, Equatable {
    public var apnsTeamID: String = ""
    public var apnsKeyID: String = ""
    /// The `.p8` token-signing key from Apple.
    public var apnsKeyFile: String = ""
    public var apnsBundleID: String = ""
    /// Replaces Apple's base URL (staging, tests); empty = Apple's, chosen per token environment.
    public var apnsEndpoint: String = ""
    /// PEM CA bundle replacing the system trust store for every provider (tests, private gateways).
    public var caFile: String = ""
    public var liveActivityAttributesType: String = "SwitchboardActivityAttributes"
    public var fcmServiceAccountFile: String = ""
    public var fcmEndpoint: String = ""
    public var fcmTokenURI: String = ""
    /// For apps that send pushes themselves: a signed POST (Standard Webhooks) per push.
    public var webhookURL: String = ""
    /// "whsec_" + base64, as Standard Webhooks libraries expect.
    public var webhookSecret: String = ""
    public var deepLinkScheme: String = "switchboard"
    public var maxInFlight: Int = 64
    /// Live Activity update tokens (one per session) a device keeps at most; a new one replaces the oldest.
    public var liveActivityTokensPerDevice: Int = 16
    public init() {}
}
