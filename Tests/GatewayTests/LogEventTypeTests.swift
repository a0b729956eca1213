@testable import Gateway
import Testing

/// The log's event types are the documented wire strings, and every machine's event maps onto the type of the same
/// string.
@Suite struct LogEventTypeTests {
    @Test func rawValuesAreTheDocumentedEventTypes() {
        #expect(LogEventType.allCases.map(\.rawValue) == [
            "message", "contact_added", "contact_removed", "session_created", "session_event", "session_ended", "session_handoff",
            "approval_request", "approval_resolved", "approval_timeout", "custom",
            "friend_request", "friend_request_accepted", "friend_request_rejected", "friend_request_cancelled",
            "contact_paused", "contact_resumed", "contact_event", "connect_code_changed",
            "group_created", "group_member_joined", "group_member_left", "group_message", "group_event", "invite_created",
            "user_blocked", "user_unblocked",
        ])
    }

    @Test func machineEventsMapOntoTheTypeOfTheSameString() {
        let pairs: [(String, LogEventType)] =
            [ApprovalMachine.Event.resolved, .timeout].map { ($0.rawValue, $0.logType) }
            + [FriendRequestMachine.Event.accepted, .rejected, .cancelled].map { ($0.rawValue, $0.logType) }
            + [ContactMachine.Event.added, .removed].map { ($0.rawValue, $0.logType) }
            + [ContactPauseMachine.Event.paused, .resumed].map { ($0.rawValue, $0.logType) }
            + [GroupCreationMachine.Event.created].map { ($0.rawValue, $0.logType) }
            + [GroupMembership.Event.joined, .left].map { ($0.rawValue, $0.logType) }
            + [GroupPost.Event.message, .event].map { ($0.rawValue, $0.logType) }
            + [InviteCreationMachine.Event.created].map { ($0.rawValue, $0.logType) }
            + [BlockMachine.Event.blocked, .unblocked].map { ($0.rawValue, $0.logType) }
        for (raw, type) in pairs { #expect(type.rawValue == raw) }
        #expect(pairs.count == 17)
    }
}
