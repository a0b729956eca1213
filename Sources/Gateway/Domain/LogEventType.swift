/// The type of an event appended to a user's durable log: the `type` of its event frame and of its stored row, as
/// docs/PROTOCOL.md lists them ("Events" for both parts). The ephemeral frames (`welcome`, `resume`, `presence`) are
/// never logged and are not here.
enum LogEventType: String, Equatable, Sendable, CaseIterable {
    case message
    case contactAdded = "contact_added"
    case contactRemoved = "contact_removed"
    case sessionCreated = "session_created"
    case sessionEvent = "session_event"
    case sessionEnded = "session_ended"
    case sessionHandoff = "session_handoff"
    case approvalRequest = "approval_request"
    case approvalResolved = "approval_resolved"
    case approvalTimeout = "approval_timeout"
    /// Published by the backend.
    case custom
    case friendRequest = "friend_request"
    case friendRequestAccepted = "friend_request_accepted"
    case friendRequestRejected = "friend_request_rejected"
    case friendRequestCancelled = "friend_request_cancelled"
    case contactPaused = "contact_paused"
    case contactResumed = "contact_resumed"
    case contactEvent = "contact_event"
    case connectCodeChanged = "connect_code_changed"
    case groupCreated = "group_created"
    case groupMemberJoined = "group_member_joined"
    case groupMemberLeft = "group_member_left"
    case groupMessage = "group_message"
    case groupEvent = "group_event"
    case inviteCreated = "invite_created"
    case userBlocked = "user_blocked"
    case userUnblocked = "user_unblocked"
}

// The events the machines decide, as log event types.

extension ApprovalMachine.Event {
    var logType: LogEventType {
        switch self {
        case .resolved: .approvalResolved
        case .timeout: .approvalTimeout
        }
    }
}

extension FriendRequestMachine.Event {
    var logType: LogEventType {
        switch self {
        case .accepted: .friendRequestAccepted
        case .rejected: .friendRequestRejected
        case .cancelled: .friendRequestCancelled
        }
    }
}

extension ContactMachine.Event {
    var logType: LogEventType {
        switch self {
        case .added: .contactAdded
        case .removed: .contactRemoved
        }
    }
}

extension ContactPauseMachine.Event {
    var logType: LogEventType {
        switch self {
        case .paused: .contactPaused
        case .resumed: .contactResumed
        }
    }
}

extension GroupCreationMachine.Event {
    var logType: LogEventType {
        switch self {
        case .created: .groupCreated
        }
    }
}

extension GroupMembership.Event {
    var logType: LogEventType {
        switch self {
        case .joined: .groupMemberJoined
        case .left: .groupMemberLeft
        }
    }
}

extension GroupPost.Event {
    var logType: LogEventType {
        switch self {
        case .message: .groupMessage
        case .event: .groupEvent
        }
    }
}

extension InviteCreationMachine.Event {
    var logType: LogEventType {
        switch self {
        case .created: .inviteCreated
        }
    }
}

extension BlockMachine.Event {
    var logType: LogEventType {
        switch self {
        case .blocked: .userBlocked
        case .unblocked: .userUnblocked
        }
    }
}
