import Foundation

/// Who may create invites to a group (`invitePolicy` of `group_create`).
public enum GroupInvitePolicy: String, Sendable, CaseIterable {
    /// Any active member (the default).
    case members
    /// Only the owner.
    case owner
}

/// Where an invite goes (`invite_create`): a code the inviter shares, or a text or e-mail the backend's invite
/// webhook sends (docs/PROTOCOL.md, "Invite webhook").
public enum InviteRecipient: Sendable, Equatable {
    /// Only the code, in the reply: the inviter shares it.
    case code
    /// An SMS to this number (E.164 after normalising).
    case phone(String)
    /// An e-mail to this address.
    case email(String)
}

/// The reply of ``SwitchboardClient/sendEvent(_:payload:to:)``, ``SwitchboardClient/sendEvent(_:payload:toGroup:)``
/// and ``SwitchboardClient/sendGroupMessage(_:to:clientMessageId:)``.
public struct SentEvent: Sendable, Equatable, Codable {
    /// Server time, Unix milliseconds.
    public var sentAt: Int64
}

extension SwitchboardClient {
    // MARK: Contacts: pause, resume, remove, events

    /// Pauses the contact from this side: presence, messages and contact events stop both ways until this side
    /// resumes (docs/PROTOCOL.md, "Pause"). Returns the contact as this user sees it. Error: `not_a_contact`.
    @discardableResult
    public func pauseContact(_ userId: String) async throws -> ContactStateData {
        try await call(.contactPause, ["userId": .string(userId)])
    }

    /// Lifts this side's pause (the other side's stays). Error: `not_a_contact`.
    @discardableResult
    public func resumeContact(_ userId: String) async throws -> ContactStateData {
        try await call(.contactResume, ["userId": .string(userId)])
    }

    /// Ends the contact for both (both get ``ClientEvent/contactRemoved(userId:)``). Error: `not_a_contact`.
    public func removeContact(_ userId: String) async throws {
        try await perform(.contactRemove, ["userId": .string(userId)])
    }

    /// An app-defined event to a contact (``ClientEvent/contactEvent(_:)`` on their devices). `name` has 1–64
    /// characters. Errors: `not_a_contact`, `contact_paused`, `invalid_field`.
    @discardableResult
    public func sendEvent(_ name: String, payload: JSONValue? = nil, to userId: String) async throws -> SentEvent {
        var fields: [String: JSONValue] = ["to": .string(userId), "name": .string(name)]
        if let payload { fields["payload"] = payload }
        return try await call(.sendEvent, fields)
    }

    /// An app-defined event to every member of a group (``ClientEvent/groupEvent(_:)``). Error: `group_not_found`.
    @discardableResult
    public func sendEvent(_ name: String, payload: JSONValue? = nil, toGroup groupId: String) async throws -> SentEvent {
        var fields: [String: JSONValue] = ["groupId": .string(groupId), "name": .string(name)]
        if let payload { fields["payload"] = payload }
        return try await call(.sendEvent, fields)
    }

    // MARK: Blocking

    /// Blocks a user: ends the contact and any pending friend request, and keeps the two apart until
    /// ``unblock(_:)``; the blocked user is not told (docs/PROTOCOL.md, "Blocking"). Blocking again returns the
    /// standing block. Errors: `user_not_found`, `self_request`.
    @discardableResult
    public func block(_ userId: String) async throws -> BlockData {
        try await call(.block, ["userId": .string(userId)])
    }

    /// Lifts a block (nothing is restored; also fine when there was none). Error: `user_not_found`.
    public func unblock(_ userId: String) async throws {
        try await perform(.unblock, ["userId": .string(userId)])
    }

    /// The users this user blocked, oldest first.
    public func blocks() async throws -> [BlockData] {
        struct Blocks: Decodable { var blocks: [BlockData] }
        return try await call(.blocks, as: Blocks.self).blocks
    }

    // MARK: Groups

    /// Creates a group owned by this user. `name`: 1–64 characters, the display-name rules; `maxMembers` counts the
    /// owner (default 12, at most 256); `roleLimits` caps active members per role (`["parent": 2]`).
    @discardableResult
    public func createGroup(name: String, kind: String? = nil, maxMembers: Int? = nil, invitePolicy: GroupInvitePolicy? = nil,
                            roleLimits: [String: Int] = [:]) async throws -> GroupData {
        var fields: [String: JSONValue] = ["name": .string(name)]
        if let kind { fields["kind"] = .string(kind) }
        if let maxMembers { fields["maxMembers"] = .int(Int64(maxMembers)) }
        if let invitePolicy { fields["invitePolicy"] = .string(invitePolicy.rawValue) }
        if !roleLimits.isEmpty { fields["roleLimits"] = .object(roleLimits.mapValues { .int(Int64($0)) }) }
        return try await call(.groupCreate, fields)
    }

    /// One group of this user (members only). Error: `group_not_found` (also when this user is not a member).
    public func group(_ groupId: String) async throws -> GroupData {
        try await call(.groupGet, ["groupId": .string(groupId)])
    }

    /// Every group this user is an active member of.
    public func groups() async throws -> [GroupData] {
        struct Groups: Decodable { var groups: [GroupData] }
        return try await call(.groupList, as: Groups.self).groups
    }

    /// Leaves a group. Errors: `group_not_found`, `forbidden` (the owner cannot leave).
    public func leaveGroup(_ groupId: String) async throws {
        try await perform(.groupLeave, ["groupId": .string(groupId)])
    }

    /// Removes a member (owner only); returns the group afterwards. Errors: `group_not_found`, `forbidden`,
    /// `not_a_member` (`userId` is not one).
    @discardableResult
    public func removeMember(_ userId: String, fromGroup groupId: String) async throws -> GroupData {
        try await call(.groupRemoveMember, ["groupId": .string(groupId), "userId": .string(userId)])
    }

    /// A message to every active member (``ClientEvent/groupMessage(_:)``), idempotent by `clientMessageId` like
    /// ``send(message:to:clientMessageId:)``. Errors: `group_not_found`, `text_empty`, `text_too_long`.
    @discardableResult
    public func sendGroupMessage(_ text: String, to groupId: String, clientMessageId: String = UUID().uuidString) async throws -> SentEvent {
        try await call(.groupSendMessage, ["groupId": .string(groupId), "text": .string(text), "clientMessageId": .string(clientMessageId)])
    }

    // MARK: Invites

    /// Creates an invite to a group (one use; `expiresInHours` 1–720, default 168). Errors: `group_not_found`,
    /// `forbidden` (owner-only invites), `group_full`, `phone_invalid`, `already_member`, `rate_limited`.
    @discardableResult
    public func createInvite(toGroup groupId: String, for recipient: InviteRecipient = .code, role: String? = nil,
                             expiresInHours: Int? = nil) async throws -> InviteData {
        var fields: [String: JSONValue] = ["groupId": .string(groupId)]
        switch recipient {
        case .code: break
        case .phone(let number): fields["phone"] = .string(number)
        case .email(let address): fields["email"] = .string(address)
        }
        if let role { fields["role"] = .string(role) }
        if let expiresInHours { fields["expiresInHours"] = .int(Int64(expiresInHours)) }
        return try await call(.inviteCreate, fields)
    }

    /// Joins the group of an invite code (case-insensitive); returns the group. Errors: `invite_not_found`,
    /// `invite_used`, `invite_expired`, `invite_revoked`, `already_member`, `group_full`, `rate_limited`.
    @discardableResult
    public func redeemInvite(code: String) async throws -> GroupData {
        try await call(.inviteRedeem, ["code": .string(code)])
    }

    // MARK: Discovery

    /// Which of these phone numbers (E.164, or SHA-256 hex of the E.164 string in `hashes`) are contacts, users or
    /// worth an invite; one entry per input. At most 500 per call. Errors: `invalid_field`, `rate_limited`.
    public func discover(numbers: [String] = [], hashes: [String] = []) async throws -> [DiscoveryEntry] {
        struct Entries: Decodable { var entries: [DiscoveryEntry] }
        var fields: [String: JSONValue] = [:]
        if !numbers.isEmpty { fields["numbers"] = .array(numbers.map(JSONValue.string)) }
        if !hashes.isEmpty { fields["hashes"] = .array(hashes.map(JSONValue.string)) }
        return try await call(.discover, fields, as: Entries.self).entries
    }
}
