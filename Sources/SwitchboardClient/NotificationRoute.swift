import Foundation

/// Where a tapped notification should take the app, read from the push's `userInfo` (APNs), its `data` (FCM) or a
/// push webhook body: every push the gateway sends carries the event `type`, its ids and a deep link
/// (docs/PUSH.md, "Routing"). Plain Swift, so an app's notification delegate stays a one-liner:
///
/// ```swift
/// func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
///     if let route = NotificationRoute(userInfo: response.notification.request.content.userInfo) { router.open(route) }
/// }
/// ```
public enum NotificationRoute: Sendable, Equatable {
    /// An approval request (`approval_request`, or the `approval_resolved`/`approval_timeout` push that clears it):
    /// open the approval card of `requestId` in `sessionId`.
    case approval(sessionId: String, requestId: String)
    /// A session (`session_handoff`: it moved to another device).
    case session(sessionId: String)
    /// A direct-message conversation with `userId` (`message`); `messageId` when the push names it.
    case chat(userId: String, messageId: Int64?)
    /// A group's conversation (`group_message`); `from` is the sender when the push names it.
    case group(groupId: String, from: String?)
    /// The contact list or friend requests (`contact_added`, `contact_removed`, `friend_request`, `friend_request_accepted`).
    case contacts
    /// Contacts whose presence changed (the coalesced `presence` background push).
    case presence(userIds: [String])

    /// The route of a push payload; nil when it is not one of the gateway's (or names no ids it needs). The event
    /// `type` decides; a payload without a known type falls back to its `deeplink`.
    public init?(userInfo: [AnyHashable: Any]) {
        // A push webhook body keeps the ids under `ids`; APNs and FCM payloads carry them at the top level.
        var fields: [String: String] = [:]
        if let ids = userInfo["ids"] as? [AnyHashable: Any] { Self.collect(ids, into: &fields) }
        Self.collect(userInfo, into: &fields)
        if let route = Self.route(type: fields["type"], fields) {
            self = route
        } else if let link = fields["deeplink"], let route = NotificationRoute(deepLink: link) {
            self = route
        } else {
            return nil
        }
    }

    /// The route of a deep link the gateway builds (`<scheme>://session/{sessionId}/approval/{requestId}`,
    /// `…://session/{sessionId}`, `…://chat/{userId}`, `…://group/{groupId}`), with or without the scheme; nil for
    /// any other path. Segments are percent-decoded.
    public init?(deepLink: String) {
        var path = Substring(deepLink)
        if let scheme = path.range(of: "://") { path = path[scheme.upperBound...] }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map { String($0).removingPercentEncoding ?? String($0) }
        switch segments.count {
        case 4 where segments[0] == "session" && segments[2] == "approval": self = .approval(sessionId: segments[1], requestId: segments[3])
        case 2 where segments[0] == "session": self = .session(sessionId: segments[1])
        case 2 where segments[0] == "chat": self = .chat(userId: segments[1], messageId: nil)
        case 2 where segments[0] == "group": self = .group(groupId: segments[1], from: nil)
        default: return nil
        }
    }

    /// The deep-link path of this route as the gateway writes it (without `<scheme>://`); nil for the routes that
    /// have none (contacts, presence).
    public var deepLinkPath: String? {
        switch self {
        case .approval(let sessionId, let requestId): "session/\(sessionId)/approval/\(requestId)"
        case .session(let sessionId): "session/\(sessionId)"
        case .chat(let userId, _): "chat/\(userId)"
        case .group(let groupId, _): "group/\(groupId)"
        case .contacts, .presence: nil
        }
    }

    private static func route(type: String?, _ fields: [String: String]) -> NotificationRoute? {
        guard let type, let kind = ClientEventKind(rawValue: type) ?? (type == "presence" ? .presence : nil) else { return nil }
        switch kind {
        case .approvalRequest, .approvalResolved, .approvalTimeout:
            guard let sessionId = fields["sessionId"], let requestId = fields["requestId"] else { return nil }
            return .approval(sessionId: sessionId, requestId: requestId)
        case .sessionHandoff, .sessionCreated, .sessionEvent, .sessionEnded:
            return fields["sessionId"].map { .session(sessionId: $0) }
        case .message:
            return fields["from"].map { .chat(userId: $0, messageId: fields["messageId"].flatMap { Int64($0) }) }
        case .groupMessage, .groupEvent, .groupCreated, .groupMemberJoined, .groupMemberLeft:
            return fields["groupId"].map { .group(groupId: $0, from: fields["from"]) }
        case .contactAdded, .contactRemoved, .friendRequest, .friendRequestAccepted, .friendRequestRejected,
             .friendRequestCancelled, .contactPaused, .contactResumed:
            return .contacts
        case .presence:
            return .presence(userIds: (fields["userIds"] ?? "").split(separator: ",").map(String.init))
        case .welcome, .resume, .contactEvent, .custom, .connectCodeChanged, .userBlocked, .userUnblocked, .inviteCreated:
            return nil  // never pushed
        }
    }

    /// String members of a payload dictionary (numbers too: a `messageId` may arrive as one).
    private static func collect(_ dictionary: [AnyHashable: Any], into fields: inout [String: String]) {
        for (key, value) in dictionary {
            guard let name = key.base as? String else { continue }
            if let text = value as? String { fields[name] = text }
            else if let number = value as? Int64 { fields[name] = String(number) }
            else if let number = value as? Int { fields[name] = String(number) }
        }
    }
}
