/// The visible title and body of a notification, after the lock-screen privacy rule.
public struct PushAlertText: Sendable, Equatable {
    /// What an event is about; decides the generic text shown without "show details".
    public enum Kind: String, Sendable {
        /// An agent waits for the user's approval.
        case approval
        /// A new chat message.
        case message
        /// A session finished, failed or changed state.
        case sessionUpdate

        /// The generic title shown when details are hidden.
        public var genericTitle: String {
            switch self {
            case .approval: return "Approval needed"
            case .message: return "New message"
            case .sessionUpdate: return "Session updated"
            }
        }
    }

    public var title: String
    public var body: String?
    /// The title's localisation key (APNs `title-loc-key`, FCM `title_loc_key`; ``PushLocalization``), with `title`
    /// as the English fallback; nil sends none.
    public var titleKey: String?
    /// The key's `%@` arguments (APNs `title-loc-args`), already redacted.
    public var titleArguments: [String]

    public init(title: String, body: String? = nil, titleKey: String? = nil, titleArguments: [String] = []) {
        self.title = title
        self.body = body
        self.titleKey = titleKey
        self.titleArguments = titleArguments
    }

    /// Lock-screen text for an event. Without `showDetails` only the kind's generic title is shown
    /// (no body: the content stays in the app). With it, title and body pass ``Redactor/redact(_:)``
    /// (secrets removed, at most 200 Characters each); an empty title falls back to the generic one.
    public static func lockScreen(kind: Kind, title: String, body: String?, showDetails: Bool) -> PushAlertText {
        guard showDetails else { return PushAlertText(title: kind.genericTitle) }
        let visibleTitle = Redactor.redact(title)
        let visibleBody = body.map(Redactor.redact).flatMap { $0.isEmpty ? nil : $0 }
        return PushAlertText(title: visibleTitle.isEmpty ? kind.genericTitle : visibleTitle, body: visibleBody)
    }
}
