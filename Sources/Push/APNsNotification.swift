/// One notification for one device, as the APNs provider API takes it.
public struct APNsNotification: Sendable {
    /// `apns-push-type`; decides the topic suffix and the allowed priority.
    public enum PushType: String, Sendable {
        /// A visible alert (`apns-push-type: alert`).
        case alert
        /// A silent `content-available` push (`apns-push-type: background`); APNs requires priority 5.
        case background
        /// A Live Activity update/start/end (`apns-push-type: liveactivity`), topic
        /// `<bundle>.push-type.liveactivity`.
        case liveActivity = "liveactivity"
    }

    /// The device token (hex) or Live Activity push token.
    public var deviceToken: String
    /// The push type.
    public var pushType: PushType
    /// The JSON payload (`aps` plus app fields), at most 4 KiB (5 KiB for VoIP) per APNs.
    public var payload: [UInt8]
    /// `apns-expiration` in Unix seconds; nil omits the header, 0 means "deliver now or never".
    public var expiration: Int64?
    /// `apns-collapse-id` (at most 64 bytes): a newer notification replaces an older one.
    public var collapseID: String?
    /// Requested `apns-priority`; see ``priority``.
    public var requestedPriority: Int?

    public init(deviceToken: String, pushType: PushType, payload: [UInt8], expiration: Int64? = nil,
                collapseID: String? = nil, priority: Int? = nil) {
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.payload = payload
        self.expiration = expiration
        self.collapseID = collapseID
        self.requestedPriority = priority
    }

    /// The `apns-priority` sent: background pushes are always 5 (APNs rejects 10 for them);
    /// others use the requested 1, 5 or 10, defaulting to 10 (immediate).
    public var priority: Int {
        if pushType == .background { return 5 }
        if let requestedPriority, [1, 5, 10].contains(requestedPriority) { return requestedPriority }
        return 10
    }

    /// The `apns-topic` for an app: the bundle ID, with `.push-type.liveactivity` for Live Activities.
    public func topic(bundleID: String) -> String {
        pushType == .liveActivity ? bundleID + ".push-type.liveactivity" : bundleID
    }
}
