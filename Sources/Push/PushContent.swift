import JSON

/// What one push says, provider-neutral and before the lock-screen privacy rule: the input of ``PushRenderer``.
public struct PushContent: Sendable, Equatable {
    /// How an alert may interrupt (APNs `interruption-level`).
    public enum Interruption: String, Sendable, Equatable {
        case passive, active
        case timeSensitive = "time-sensitive"
    }

    /// The event the push stands for (`approval_request`, `message`, …); also picks the localisation keys.
    public var type: String
    /// The full title and body: shown only with `showDetails`, then redacted and cut.
    public var title: String?
    public var body: String?
    /// Shown instead when details are hidden (and when the title is empty).
    public var genericTitle: String
    public var showDetails: Bool
    /// The arguments of the detailed title's localisation key (an approval's tool name); nil: the title itself.
    public var titleArguments: [String]?
    /// nil: the provider's default (APNs `active`).
    public var interruption: Interruption?
    /// Routing members (`sessionId`, `requestId`, …) and the deep link; never shortened.
    public var routing: PushRouting
    public var collapseID: String?
    /// Groups alerts on the lock screen (APNs `thread-id`, FCM `tag`).
    public var threadID: String?
    public var badge: Int?
    /// A Live Activity's `content-state` (or the data of a background push), before the privacy rule.
    public var contentState: JSONValue?

    public init(type: String, title: String? = nil, body: String? = nil, genericTitle: String, showDetails: Bool = false,
                titleArguments: [String]? = nil, interruption: Interruption? = nil, routing: PushRouting? = nil,
                collapseID: String? = nil, threadID: String? = nil, badge: Int? = nil, contentState: JSONValue? = nil) {
        self.type = type; self.title = title; self.body = body; self.genericTitle = genericTitle; self.showDetails = showDetails
        self.titleArguments = titleArguments; self.interruption = interruption; self.routing = routing ?? PushRouting(type: type)
        self.collapseID = collapseID; self.threadID = threadID; self.badge = badge; self.contentState = contentState
    }
}

/// The localisation keys of alert titles (docs/PUSH.md, "Localisation"): an app ships a translation per key in its
/// `Localizable.strings` (iOS, `title-loc-key`) or string resources (Android, `title_loc_key`); the English text is
/// always sent beside it as the fallback. Bodies are the user's or backend's own text and carry no key.
public enum PushLocalization {
    /// The keys of an event type: `generic` for the title shown without details, `detailed` (taking the title's
    /// arguments as `%@`) with them; nil `detailed` when the detailed title is the backend's own text.
    public static func keys(for type: String) -> (generic: String, detailed: String?) {
        switch type {
        case "approval_request": ("SB_APPROVAL_NEEDED", "SB_APPROVAL_NEEDED_FOR")
        case "approval_resolved": ("SB_APPROVAL_ANSWERED", "SB_APPROVAL_ANSWERED_FOR")
        case "approval_timeout": ("SB_APPROVAL_TIMED_OUT", "SB_APPROVAL_TIMED_OUT_FOR")
        case "message": ("SB_NEW_MESSAGE", "SB_MESSAGE_FROM")
        case "group_message": ("SB_NEW_MESSAGE", "SB_GROUP_MESSAGE_FROM")
        case "friend_request": ("SB_FRIEND_REQUEST", "SB_FRIEND_REQUEST_FROM")
        case "session_handoff": ("SB_SESSION_MOVED", nil)
        case "custom", "session_event", "group_event": ("SB_NOTIFICATION", nil)
        case "presence": ("SB_PRESENCE_CHANGED", nil)
        default: ("SB_UPDATE", nil)
        }
    }

    /// Every key, for the documentation and the apps' string tables.
    public static let allKeys: [String] = {
        let types = ["approval_request", "approval_resolved", "approval_timeout", "message", "group_message", "friend_request",
                     "session_handoff", "custom", "presence", "contact_added"]
        var keys: [String] = []
        for type in types {
            let (generic, detailed) = Self.keys(for: type)
            for key in [generic] + (detailed.map { [$0] } ?? []) where !keys.contains(key) { keys.append(key) }
        }
        return keys
    }()
}
