import JSON

/// Where and how one push goes out. Provider-neutral: the push adapters turn it into an APNs, FCM or webhook request.
public struct PushTarget: Codable, Sendable, Equatable {
    /// `apns`, `fcm` or `webhook`.
    public var provider: String
    /// The APNs device token, Live Activity token, FCM registration token, or webhook URL.
    public var token: String
    /// `alert`, `background`, `liveActivityUpdate`, `liveActivityStart` or `liveActivityEnd`.
    public var kind: String
    /// APNs `sandbox` or `production`.
    public var environment: String?

    public init(provider: String, token: String, kind: String, environment: String? = nil) {
        self.provider = provider; self.token = token; self.kind = kind; self.environment = environment
    }
}

/// What a push says, before any provider formatting or lock-screen privacy is applied.
public struct PushNotice: Codable, Sendable, Equatable {
    /// The event type the push stands for (`approval_request`, `message`, `session_handoff`, …).
    public var type: String
    /// Full text: shown only when the user allowed details on the lock screen (and then redacted and cut to 200).
    public var title: String?
    public var body: String?
    /// Generic text shown otherwise ("Approval needed", "New message").
    public var genericTitle: String
    public var showDetails: Bool
    public var timeSensitive: Bool
    /// Ids the app routes a tap with (`sessionId`, `requestId`, `messageId`, …).
    public var ids: [String: String]
    /// Path of the deep link (`session/{sessionId}/approval/{requestId}`); the adapter prefixes the app's scheme.
    public var deepLinkPath: String?
    public var collapseID: String?
    /// Unix ms after which the push is pointless (e.g. an approval's deadline).
    public var expiresAt: Int64?
    public var badge: Int?
    /// Live Activity `content-state`.
    public var contentState: JSONValue?
    /// The `%@` arguments of the detailed title's localisation key (an approval's tool name); nil: the title itself.
    public var titleArguments: [String]?
    /// A backend webhook's whole JSON body (provider `backend`), sent as it is: decided when the event was committed,
    /// so every retry posts the same bytes' content.
    public var payload: JSONValue?

    public init(type: String, title: String? = nil, body: String? = nil, genericTitle: String, showDetails: Bool = false,
                timeSensitive: Bool = false, ids: [String: String] = [:], deepLinkPath: String? = nil, collapseID: String? = nil,
                expiresAt: Int64? = nil, badge: Int? = nil, contentState: JSONValue? = nil, payload: JSONValue? = nil,
                titleArguments: [String]? = nil) {
        self.type = type; self.title = title; self.body = body; self.genericTitle = genericTitle; self.showDetails = showDetails
        self.timeSensitive = timeSensitive; self.ids = ids; self.deepLinkPath = deepLinkPath; self.collapseID = collapseID
        self.expiresAt = expiresAt; self.badge = badge; self.contentState = contentState; self.payload = payload
        self.titleArguments = titleArguments
    }
}

/// One row of the push outbox, written in the same transaction as the event it announces. Backend webhook jobs
/// (`BackendWebhook`) share it: provider `backend`, no device (`deviceId` empty), the body in `notice.payload`.
public struct PushJobRecord: Sendable, Equatable {
    public var id: Int64
    public var userId: String
    public var deviceId: String
    public var target: PushTarget
    public var notice: PushNotice
    /// Tried in the same delivery when `target` turns out invalid (a Live Activity token → an alert push).
    public var fallback: PushTarget?
    /// `pending`, `sent` or `dead`.
    public var state: String
    public var attempts: Int
    public var nextAttemptAt: Int64
    public var lastError: String?
    public var createdAt: Int64

    public init(id: Int64, userId: String, deviceId: String, target: PushTarget, notice: PushNotice, fallback: PushTarget? = nil,
                state: String = "pending", attempts: Int = 0, nextAttemptAt: Int64, lastError: String? = nil, createdAt: Int64) {
        self.id = id; self.userId = userId; self.deviceId = deviceId; self.target = target; self.notice = notice
        self.fallback = fallback; self.state = state; self.attempts = attempts; self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError; self.createdAt = createdAt
    }
}

/// A push token of a device. `kind`: `apns`, `fcm`, `webhook`, `liveActivityStart`, or `liveActivityUpdate` (per session).
public struct PushTokenRecord: Sendable, Equatable {
    /// Devices are scoped by their user: two users may use the same device id without touching each other's tokens.
    public var userId: String
    public var deviceId: String
    public var kind: String
    public var token: String
    public var environment: String?
    /// For `liveActivityUpdate` tokens: the session whose activity it updates ("" otherwise).
    public var sessionId: String
    public var updatedAt: Int64

    public init(userId: String, deviceId: String, kind: String, token: String, environment: String? = nil, sessionId: String = "",
                updatedAt: Int64) {
        self.userId = userId; self.deviceId = deviceId; self.kind = kind; self.token = token; self.environment = environment
        self.sessionId = sessionId; self.updatedAt = updatedAt
    }
}

/// Per-user notification settings, kept server-side.
public struct NotificationSettings: Codable, Sendable, Equatable {
    public var liveActivities = true
    public var backgroundNotifications = true
    public var timeSensitive = true
    /// Show message and approval text on the lock screen (redacted, 200 characters). Off by default.
    public var showDetails = false
    /// Background pushes when contacts' presence changes while no device is connected: coalesced and at most one
    /// per `GatewaySettings.presencePushIntervalMs`. Off by default (battery).
    public var presenceUpdates = false
    /// Background pushes for contact and friend-request changes while no device is connected. Off by default.
    public var contactUpdates = false
    public init() {}

    // Settings stored by an older version lack the newer fields: they take their defaults.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        liveActivities = try c.decodeIfPresent(Bool.self, forKey: .liveActivities) ?? true
        backgroundNotifications = try c.decodeIfPresent(Bool.self, forKey: .backgroundNotifications) ?? true
        timeSensitive = try c.decodeIfPresent(Bool.self, forKey: .timeSensitive) ?? true
        showDetails = try c.decodeIfPresent(Bool.self, forKey: .showDetails) ?? false
        presenceUpdates = try c.decodeIfPresent(Bool.self, forKey: .presenceUpdates) ?? false
        contactUpdates = try c.decodeIfPresent(Bool.self, forKey: .contactUpdates) ?? false
    }
}
