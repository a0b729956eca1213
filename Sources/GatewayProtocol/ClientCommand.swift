/// One client command read from a text frame in one pass: the strict parse (duplicate member names, trailing commas
/// and the rest are `invalid_json`), then the envelope and the body read by hand from the parsed object, ids checked
/// as their fields are read. Nothing reads the frame again.
public struct CommandFrame: Sendable {
    /// The client's `id`, echoed in the reply.
    public var id: String
    public var command: ClientCommand
    /// The wire type and the frame's members as parsed (the gateway reads the users a command names from them).
    public var type: String
    public var fields: JSONFields

    /// Reads `bytes` as a command.
    /// - Throws: ``CommandDecodingError``: `.unreadable` when the frame is not a command at all (not JSON, not an
    ///   object, no string `id` or `type`), `.invalid` with the id when the type is unknown or a field is wrong.
    public static func decode(_ bytes: [UInt8]) throws(CommandDecodingError) -> CommandFrame {
        let fields: JSONFields
        let id: String, type: String
        do {
            fields = try JSONFields.parse(bytes)
        } catch {
            throw .unreadable(id: nil, error)
        }
        do {
            id = try fields.string("id")
            type = try fields.string("type")
        } catch {
            throw .unreadable(id: try? fields.string("id"), error)
        }
        do {
            return CommandFrame(id: id, command: try ClientCommand(type: type, fields: fields), type: type, fields: fields)
        } catch {
            throw .invalid(id: id, error)
        }
    }
}

/// Why a frame gave no command; see ``CommandFrame/decode(_:)``.
public enum CommandDecodingError: Error, Sendable {
    /// Not a command: the reply carries `id` when one could be read, else null.
    case unreadable(id: String?, GatewayError)
    /// A command (with this id) of an unknown type or with a missing or bad field.
    case invalid(id: String, GatewayError)

    /// The command's id, when the frame had one.
    public var id: String? {
        switch self {
        case .unreadable(let id, _): id
        case .invalid(let id, _): id
        }
    }
}

/// Every command a device may send, with its typed body (docs/PROTOCOL.md has the table).
public enum ClientCommand: Sendable {
    case auth(AuthCommand)
    case ack(AckCommand)
    case sendMessage(SendMessageCommand)
    case history(HistoryCommand)
    case unreadCounts
    case markRead(MarkReadCommand)
    case setPresence(SetPresenceCommand)
    case appState(AppStateCommand)
    case presence
    case sessionAttach(SessionCommand)
    case sessionGet(SessionCommand)
    case sessionList
    case approve(ApprovalAnswerCommand)
    case deny(ApprovalAnswerCommand)
    case approvalsPending
    case pushRegister(PushRegisterCommand)
    case pushUnregister(PushUnregisterCommand)
    case notificationSettings
    case setNotificationSettings(NotificationSettingsCommand)
    case relationship(RelationshipCommand)

    /// The command of wire type `type` with its body read from `fields`.
    /// - Throws: `unknown_type`, or the body's `missing_field` / `invalid_field` / `invalid_id`.
    public init(type: String, fields f: JSONFields) throws(GatewayError) {
        switch type {
        case "ack": self = .ack(try AckCommand(fields: f))
        case "send_message": self = .sendMessage(try SendMessageCommand(fields: f))
        case "history": self = .history(try HistoryCommand(fields: f))
        case "unread_counts": self = .unreadCounts
        case "mark_read": self = .markRead(try MarkReadCommand(fields: f))
        case "set_presence": self = .setPresence(try SetPresenceCommand(fields: f))
        case "app_state": self = .appState(try AppStateCommand(fields: f))
        case "presence": self = .presence
        case "session_attach": self = .sessionAttach(try SessionCommand(fields: f))
        case "session_get": self = .sessionGet(try SessionCommand(fields: f))
        case "session_list": self = .sessionList
        case "approve": self = .approve(try ApprovalAnswerCommand(fields: f))
        case "deny": self = .deny(try ApprovalAnswerCommand(fields: f))
        case "approvals_pending": self = .approvalsPending
        case "push_register": self = .pushRegister(try PushRegisterCommand(fields: f))
        case "push_unregister": self = .pushUnregister(try PushUnregisterCommand(fields: f))
        case "notification_settings": self = .notificationSettings
        case "set_notification_settings": self = .setNotificationSettings(try NotificationSettingsCommand(fields: f))
        case "auth": self = .auth(try AuthCommand(fields: f))
        default:
            guard let command = try RelationshipCommand(type: type, fields: f) else {
                throw GatewayError(.unknownType, "unknown command type \"\(type)\"")
            }
            self = .relationship(command)
        }
    }
}

/// The relationship flows' commands (docs/PROTOCOL.md, "Relationships").
public enum RelationshipCommand: Sendable {
    case friendRequest(FriendRequestCommand)
    case friendRequests
    case friendRequestAccept(FriendRequestAnswerCommand)
    case friendRequestReject(FriendRequestAnswerCommand)
    case friendRequestCancel(FriendRequestAnswerCommand)
    case connectCode(ConnectCodeCommand)
    case connect(ConnectCommand)
    case contacts
    case contactPause(ContactCommand)
    case contactResume(ContactCommand)
    case contactRemove(ContactCommand)
    case sendEvent(SendEventCommand)
    case groupCreate(GroupCreateCommand)
    case groupGet(GroupCommand)
    case groupList
    case groupLeave(GroupCommand)
    case groupRemoveMember(GroupMemberCommand)
    case groupSendMessage(GroupSendMessageCommand)
    case inviteCreate(InviteCreateCommand)
    case inviteRedeem(InviteRedeemCommand)
    case discover(DiscoverCommand)
    case block(ContactCommand)
    case unblock(ContactCommand)
    case blocks

    /// The command of wire type `type`, or nil when `type` is not a relationship command.
    public init?(type: String, fields f: JSONFields) throws(GatewayError) {
        switch type {
        case "friend_request": self = .friendRequest(try FriendRequestCommand(fields: f))
        case "friend_requests": self = .friendRequests
        case "friend_request_accept": self = .friendRequestAccept(try FriendRequestAnswerCommand(fields: f))
        case "friend_request_reject": self = .friendRequestReject(try FriendRequestAnswerCommand(fields: f))
        case "friend_request_cancel": self = .friendRequestCancel(try FriendRequestAnswerCommand(fields: f))
        case "connect_code": self = .connectCode(try ConnectCodeCommand(fields: f))
        case "connect": self = .connect(try ConnectCommand(fields: f))
        case "contacts": self = .contacts
        case "contact_pause": self = .contactPause(try ContactCommand(fields: f))
        case "contact_resume": self = .contactResume(try ContactCommand(fields: f))
        case "contact_remove": self = .contactRemove(try ContactCommand(fields: f))
        case "send_event": self = .sendEvent(try SendEventCommand(fields: f))
        case "group_create": self = .groupCreate(try GroupCreateCommand(fields: f))
        case "group_get": self = .groupGet(try GroupCommand(fields: f))
        case "group_list": self = .groupList
        case "group_leave": self = .groupLeave(try GroupCommand(fields: f))
        case "group_remove_member": self = .groupRemoveMember(try GroupMemberCommand(fields: f))
        case "group_send_message": self = .groupSendMessage(try GroupSendMessageCommand(fields: f))
        case "invite_create": self = .inviteCreate(try InviteCreateCommand(fields: f))
        case "invite_redeem": self = .inviteRedeem(try InviteRedeemCommand(fields: f))
        case "discover": self = .discover(try DiscoverCommand(fields: f))
        case "block": self = .block(try ContactCommand(fields: f))
        case "unblock": self = .unblock(try ContactCommand(fields: f))
        case "blocks": self = .blocks
        default: return nil
        }
    }
}
