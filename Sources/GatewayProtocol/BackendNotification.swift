/// The optional `notification` object a backend attaches to an event it publishes (`POST /v1/sessions/{id}/events`,
/// `POST /v1/users/{id}/events`): such an event is pushed as an alert like a message — the same acknowledgement
/// deadline, the same privacy rule (`title`/`body` shown only with "show details", a generic text otherwise).
///
/// Read strictly: `title`, `body` and `interruption` are required, `collapseId` and `threadId` optional, any other
/// member is refused (a misspelt `tittle` must not silently send an empty alert); every refusal is `invalid_field` or
/// `missing_field` naming `notification.<field>`. A value type; pure.
public struct BackendNotification: Sendable, Equatable, Codable {
    /// How the alert may interrupt (APNs `interruption-level`; FCM and webhooks get the same word).
    public enum Interruption: String, Sendable, Equatable, CaseIterable, Codable {
        /// Delivered quietly (no sound, no screen wake-up).
        case passive
        /// The default of an alert.
        case active
        /// Breaks through Focus (the app needs the entitlement; the user's `timeSensitive` setting may turn it down
        /// to `active`).
        case timeSensitive

        /// The APNs `interruption-level` value.
        public var apnsLevel: String {
            switch self {
            case .passive: "passive"
            case .active: "active"
            case .timeSensitive: "time-sensitive"
            }
        }
    }

    /// Longest `title` accepted, in UTF-8 bytes (a lock screen shows a line or two; the renderer shortens further).
    public static let maxTitleBytes = 256
    /// Longest `body`, in UTF-8 bytes (under the providers' 4 KB payload with room for the rest).
    public static let maxBodyBytes = 2_048
    /// Longest `collapseId` (APNs `apns-collapse-id` takes at most 64 bytes) and `threadId`.
    public static let maxIdentifierBytes = 64
    /// The members a `notification` object may have.
    public static let members: Set<String> = ["title", "body", "interruption", "collapseId", "threadId"]

    public var title: String
    public var body: String
    public var interruption: Interruption
    /// Notifications with the same one replace each other (APNs `apns-collapse-id`, FCM `collapse_key`).
    public var collapseId: String?
    /// Groups notifications on the lock screen (APNs `thread-id`, FCM `tag`).
    public var threadId: String?

    public init(
        title: String, body: String, interruption: Interruption = .active, collapseId: String? = nil,
        threadId: String? = nil
    ) {
        self.title = title; self.body = body; self.interruption = interruption; self.collapseId = collapseId;
        self.threadId = threadId
    }

    /// The object under `notification` in `body`, or nil when that member is absent or null.
    /// - Throws: `invalid_field` (not an object, an unknown member, an empty or too long text, an unknown
    ///   `interruption`) or `missing_field`, naming `notification.<field>`.
    public static func optional(in body: JSONFields) throws(GatewayError) -> BackendNotification? {
        guard let value = body.members["notification"], value != .null else { return nil }
        let f = try body.object("notification")
        if let unknown = f.members.keys.sorted().first(where: { !members.contains($0) }) {
            throw GatewayError(
                .invalidField,
                "field \"notification.\(unknown)\" is not allowed (allowed: \(members.sorted().joined(separator: ", ")))"
            )
        }
        let title = try text(f.string("title"), "title", max: maxTitleBytes)
        let body = try text(f.string("body"), "body", max: maxBodyBytes)
        let word = try f.string("interruption")
        guard let interruption = Interruption(rawValue: word) else {
            throw GatewayError(
                .invalidField,
                "field \"notification.interruption\" must be one of \(Interruption.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))"
            )
        }
        let collapseId = try f.optionalString("collapseId").map { (s: String) throws(GatewayError) in
            try text(s, "collapseId", max: maxIdentifierBytes)
        }
        let threadId = try f.optionalString("threadId").map { (s: String) throws(GatewayError) in
            try text(s, "threadId", max: maxIdentifierBytes)
        }
        return BackendNotification(
            title: title, body: body, interruption: interruption, collapseId: collapseId, threadId: threadId)
    }

    private static func text(_ value: String, _ name: String, max: Int) throws(GatewayError) -> String {
        guard !value.isEmpty, value.utf8.count <= max else {
            throw GatewayError(
                .invalidField,
                "field \"notification.\(name)\" must have 1 to \(max) bytes (UTF-8), got \(value.utf8.count)")
        }
        return value
    }
}
