/// Every event the gateway sends (docs/PROTOCOL.md, the two "Events" tables), by its wire `type`. Each maps to a
/// typed ``ClientEvent`` case (the switch in `ClientEvent(type:data:)` is exhaustive over this enum); only a type
/// not listed here arrives as ``ClientEvent/other(type:data:)``. `ClientSurfaceTests` fails when the protocol
/// documents an event missing here.
public enum ClientEventKind: String, Sendable, CaseIterable {
    /// Reported as ``ClientEvent/connection(_:)`` with ``ConnectionState/connected(userId:deviceId:latestOffset:)``.
    case welcome
    /// Reported as ``ClientEvent/resync(_:)`` when `recovered` is false (a recovered resume needs no action).
    case resume
    case presence
    case message
    case contactAdded = "contact_added"
    case contactRemoved = "contact_removed"
    case contactPaused = "contact_paused"
    case contactResumed = "contact_resumed"
    case contactEvent = "contact_event"
    case sessionCreated = "session_created"
    case sessionEvent = "session_event"
    case sessionEnded = "session_ended"
    case sessionHandoff = "session_handoff"
    case approvalRequest = "approval_request"
    case approvalResolved = "approval_resolved"
    case approvalTimeout = "approval_timeout"
    case custom
    case friendRequest = "friend_request"
    case friendRequestAccepted = "friend_request_accepted"
    case friendRequestRejected = "friend_request_rejected"
    case friendRequestCancelled = "friend_request_cancelled"
    case connectCodeChanged = "connect_code_changed"
    case userBlocked = "user_blocked"
    case userUnblocked = "user_unblocked"
    case groupCreated = "group_created"
    case groupMemberJoined = "group_member_joined"
    case groupMemberLeft = "group_member_left"
    case groupMessage = "group_message"
    case groupEvent = "group_event"
    case inviteCreated = "invite_created"
}
