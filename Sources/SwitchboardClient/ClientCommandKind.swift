/// Every command of the gateway protocol (docs/PROTOCOL.md, the two "Commands" tables) that the client sends, by its
/// wire `type`. Each has a typed method on ``SwitchboardClient`` (`ack` is sent by the client itself once an event is
/// handled); `auth` is not here because this client puts the token on the upgrade instead (docs/PROTOCOL.md,
/// "Identity"). `ClientSurfaceTests` fails when the protocol documents a command missing here.
public enum ClientCommandKind: String, Sendable, CaseIterable {
    case ack
    case sendMessage = "send_message"
    case history
    case unreadCounts = "unread_counts"
    case markRead = "mark_read"
    case setPresence = "set_presence"
    case appState = "app_state"
    case presence
    case sessionAttach = "session_attach"
    case sessionGet = "session_get"
    case sessionList = "session_list"
    case approve
    case deny
    case approvalsPending = "approvals_pending"
    case pushRegister = "push_register"
    case pushUnregister = "push_unregister"
    case notificationSettings = "notification_settings"
    case setNotificationSettings = "set_notification_settings"
    case friendRequest = "friend_request"
    case friendRequests = "friend_requests"
    case friendRequestAccept = "friend_request_accept"
    case friendRequestReject = "friend_request_reject"
    case friendRequestCancel = "friend_request_cancel"
    case connectCode = "connect_code"
    case connect
    case contacts
    case contactPause = "contact_pause"
    case contactResume = "contact_resume"
    case contactRemove = "contact_remove"
    case block
    case unblock
    case blocks
    case sendEvent = "send_event"
    case groupCreate = "group_create"
    case groupGet = "group_get"
    case groupList = "group_list"
    case groupLeave = "group_leave"
    case groupRemoveMember = "group_remove_member"
    case groupSendMessage = "group_send_message"
    case inviteCreate = "invite_create"
    case inviteRedeem = "invite_redeem"
    case discover
}

extension ClientCommandKind {
    /// Whether the client may send this command again when the connection drops before its reply, not knowing
    /// whether the gateway got it. True for reads, for commands with an idempotency key (`send_message`,
    /// `group_send_message` carry a `clientMessageId`), and for those whose repeat is refused or changes nothing
    /// (`approve` → `approval_already_resolved`, `block` answers the standing block, `connect` → `already_friends`,
    /// settings and tokens are set again). False for those that would act twice: a second group, invite or event, a
    /// second new connect code; those fail with ``ClientError/connectionLost(_:)`` instead.
    public func isSafeToResend(_ fields: [String: JSONValue]) -> Bool {
        switch self {
        case .groupCreate, .inviteCreate, .sendEvent: false
        case .connectCode: fields["regenerate"] != .bool(true)
        default: true
        }
    }
}
