/// Client commands (and server-API bodies) that register push tokens and set notification preferences
/// (docs/PUSH.md). Field names are the wire names; optional fields may be omitted.

/// `push_register`: a device token of one `kind` (`apns`, `fcm`, `webhook`, `liveActivityStart`,
/// `liveActivityUpdate`; the last one per session).
public struct PushRegisterCommand: Sendable, Equatable, Encodable, JSONFieldsDecodable {
    public var kind: String
    public var token: String
    public var environment: String?
    public var sessionId: String?

    public init(fields f: JSONFields) throws(GatewayError) {
        kind = try f.string("kind")
        token = try f.string("token")
        environment = try f.optionalString("environment")
        sessionId = try f.optionalID("sessionId")
    }
}

/// `push_unregister`.
public struct PushUnregisterCommand: Sendable, Equatable, Encodable, JSONFieldsDecodable {
    public var kind: String
    public var sessionId: String?

    public init(fields f: JSONFields) throws(GatewayError) {
        kind = try f.string("kind")
        sessionId = try f.optionalID("sessionId")
    }
}

/// `set_notification_settings`: only the preferences given change.
public struct NotificationSettingsCommand: Sendable, Equatable, Encodable, JSONFieldsDecodable {
    public var liveActivities: Bool?
    public var backgroundNotifications: Bool?
    public var timeSensitive: Bool?
    public var showDetails: Bool?
    public var presenceUpdates: Bool?
    public var contactUpdates: Bool?

    public init(fields f: JSONFields) throws(GatewayError) {
        liveActivities = try f.optionalBool("liveActivities")
        backgroundNotifications = try f.optionalBool("backgroundNotifications")
        timeSensitive = try f.optionalBool("timeSensitive")
        showDetails = try f.optionalBool("showDetails")
        presenceUpdates = try f.optionalBool("presenceUpdates")
        contactUpdates = try f.optionalBool("contactUpdates")
    }
}
