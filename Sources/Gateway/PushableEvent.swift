import GatewayProtocol
import JSON

/// The typed data of an event push policy may act on, carried beside the event's encoded bytes
/// (`PendingEvent.pushable`), so the policy reads fields, never the JSON just encoded. Events without one (presence,
/// sessions, custom events…) are never pushed (docs/PUSH.md).
enum PushableEvent: Sendable {
    case message(MessageData)
    case groupMessage(GroupMessageData)
    /// `approval_request`, `approval_resolved`, `approval_timeout` (the event's type tells them apart).
    case approval(ApprovalData)
    case handoff(SessionHandoffData)
    case contactAdded(ContactData)
    case contactRemoved(userId: String)
    /// `friend_request`, `friend_request_accepted`.
    case friendRequest(FriendRequestData)
    /// A backend event (`custom`, `session_event`) with the `notification` its backend attached: an alert.
    case notification(BackendNotification, ids: [String: String], deepLinkPath: String?)

    /// The event's data as a tree, for a notice's Live Activity / background content state (none for messages,
    /// whose alert carries its own fields); built only when a push job is made.
    var contentState: JSONValue? {
        switch self {
        case .message, .groupMessage, .notification: nil
        case .approval(let data): data.jsonValue
        case .handoff(let data): data.jsonValue
        case .contactAdded(let data): data.jsonValue
        case .contactRemoved(let userId): .object(["userId": .string(userId)])
        case .friendRequest(let data): data.jsonValue
        }
    }
}

extension ContactData: JSONValueConvertible {
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["userId": .string(userId), "hexCode": .string(hexCode)]
        if let displayName { members["displayName"] = .string(displayName) }
        return .object(members)
    }
}
