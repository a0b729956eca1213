import Foundation

/// The result of ``SwitchboardClient/send(message:to:clientMessageId:)``.
public struct SentMessage: Sendable, Equatable, Codable {
    public var messageId: Int64
    public var sentAt: Int64
}

/// One page of ``SwitchboardClient/history(with:before:limit:)``, newest first.
public struct HistoryPage: Sendable, Equatable, Codable {
    public var messages: [MessageData]
    public var hasMore: Bool
}

/// ``SwitchboardClient/pendingApprovals()``: the pending requests, oldest first, and the badge count.
public struct PendingApprovals: Sendable, Equatable, Codable {
    public var approvals: [ApprovalData]
    public var badge: Int
}

/// ``SwitchboardClient/friendRequests()``: pending requests, oldest first.
public struct FriendRequests: Sendable, Equatable, Codable {
    public var incoming: [FriendRequestData]
    public var outgoing: [FriendRequestData]
}

/// Per-user notification settings (docs/PUSH.md). `showDetails` false means generic lock-screen text.
public struct NotificationSettings: Sendable, Equatable, Codable {
    public var liveActivities: Bool
    public var backgroundNotifications: Bool
    public var timeSensitive: Bool
    /// Show message and approval text on the lock screen (detailed) instead of a generic line.
    public var showDetails: Bool
    public var presenceUpdates: Bool
    public var contactUpdates: Bool
}

/// `online` or `away` for ``SwitchboardClient/setPresence(_:)``.
public enum PresenceStatus: String, Sendable {
    case online, away
}

/// Where the app is, for ``SwitchboardClient/appState(_:)``: in `background` the gateway pushes the device's pushable
/// events at once instead of waiting for an acknowledgement (docs/PUSH.md, "Delivery to the person").
public enum AppState: String, Sendable {
    case foreground, background
}

/// The APNs environment a device token belongs to.
public enum APNsEnvironment: String, Sendable {
    case sandbox, production
}

/// What a registered push token is for (`push_register`'s `kind`, docs/PUSH.md).
public enum PushTokenKind: String, Sendable, CaseIterable {
    /// APNs alerts and background pushes.
    case apns
    /// Firebase Cloud Messaging.
    case fcm
    /// The app's own push service, through `push.webhook_url`.
    case webhook
    /// The Live Activity push-to-start token (one per device).
    case liveActivityStart
    /// The update token of one session's Live Activity.
    case liveActivityUpdate
}

extension SwitchboardClient {
    /// Calls `kind` and decodes its result as `T`.
    func call<T: Decodable>(_ kind: ClientCommandKind, _ fields: [String: JSONValue] = [:], as: T.Type = T.self)
        async throws -> T
    {
        let result = try await command(kind.rawValue, fields)
        guard let value: T = result.decoded() else {
            throw ClientError.invalidReply("\(kind.rawValue): unexpected result shape")
        }
        return value
    }

    /// Calls `kind` for its effect only.
    func perform(_ kind: ClientCommandKind, _ fields: [String: JSONValue] = [:]) async throws {
        _ = try await command(kind.rawValue, fields)
    }

    // MARK: Messages

    /// Sends a direct message to a contact. `clientMessageId` makes retries safe: the gateway returns the first
    /// result for a repeated id and delivers the message once (the default is a fresh UUID, kept across the
    /// client's own resends after a reconnect). Errors: `not_a_contact`, `contact_paused`, `text_empty`, `text_too_long`.
    public func send(message text: String, to userId: String, clientMessageId: String = UUID().uuidString) async throws
        -> SentMessage
    {
        try await call(
            .sendMessage, ["to": .string(userId), "text": .string(text), "clientMessageId": .string(clientMessageId)])
    }

    /// ``send(message:to:clientMessageId:)`` without waiting for the reply: returns once the message is queued, with
    /// a task that finishes with the reply. Messages queued one after the other go out in that order, so a sender can
    /// keep several in flight. A refusal of one does not hold back those behind it: sent again, it lands after them.
    public func enqueue(message text: String, to userId: String, clientMessageId: String = UUID().uuidString) throws
        -> Task<SentMessage, any Error>
    {
        let reply = try enqueue(
            ClientCommandKind.sendMessage.rawValue,
            ["to": .string(userId), "text": .string(text), "clientMessageId": .string(clientMessageId)])
        return Task {
            guard let sent: SentMessage = try await reply.value.decoded() else {
                throw ClientError.invalidReply("send_message: unexpected result shape")
            }
            return sent
        }
    }

    /// Messages with `userId`, newest first; `before` is a messageId for paging, `limit` 1–100 (default 50).
    public func history(with userId: String, before: Int64? = nil, limit: Int? = nil) async throws -> HistoryPage {
        var fields: [String: JSONValue] = ["with": .string(userId)]
        if let before { fields["before"] = .int(before) }
        if let limit { fields["limit"] = .int(Int64(limit)) }
        return try await call(.history, fields)
    }

    /// Unread message counts per contact user id.
    public func unreadCounts() async throws -> [String: Int64] {
        struct Counts: Decodable { var counts: [String: Int64] }
        return try await call(.unreadCounts, as: Counts.self).counts
    }

    /// Marks messages from `userId` up to `messageId` as read.
    public func markRead(with userId: String, upTo messageId: Int64) async throws {
        try await perform(.markRead, ["with": .string(userId), "upTo": .int(messageId)])
    }

    // MARK: Presence

    /// Sets this device's presence; returns the user's presence afterwards.
    @discardableResult
    public func setPresence(_ status: PresenceStatus) async throws -> PresenceData {
        try await call(.setPresence, ["status": .string(status.rawValue)])
    }

    /// Tells the gateway whether the app is in the foreground or the background (`app_state`). Apps call it from
    /// their lifecycle (`scenePhase`, or the application notifications); a new connection starts in foreground.
    public func appState(_ state: AppState) async throws {
        try await perform(.appState, ["state": .string(state.rawValue)])
    }

    /// The presence of every (unpaused) contact. Presence is not durable: ask again after reconnecting.
    public func presence() async throws -> [PresenceData] {
        struct Contacts: Decodable { var contacts: [PresenceData] }
        return try await call(.presence, as: Contacts.self).contacts
    }

    // MARK: Sessions and approvals

    /// Makes this device the session's active client; other devices get ``ClientEvent/sessionHandoff(_:)``.
    @discardableResult
    public func attach(session sessionId: String) async throws -> SessionData {
        try await call(.sessionAttach, ["sessionId": .string(sessionId)])
    }

    /// One session of this user.
    public func session(_ sessionId: String) async throws -> SessionData {
        try await call(.sessionGet, ["sessionId": .string(sessionId)])
    }

    /// Every session of this user, oldest first.
    public func sessions() async throws -> [SessionData] {
        struct Sessions: Decodable { var sessions: [SessionData] }
        return try await call(.sessionList, as: Sessions.self).sessions
    }

    /// Approves a request. The first answer from any device wins; a later one throws
    /// ``ClientError/server(code:message:)`` with `approval_already_resolved` (``ClientError/isApprovalAlreadyResolved``)
    /// or `approval_expired` (``ClientError/isApprovalExpired``).
    @discardableResult
    public func approve(_ requestId: String, reason: String? = nil) async throws -> ApprovalData {
        try await answer(.approve, requestId, reason)
    }

    /// Denies a request; same rules and errors as ``approve(_:reason:)``.
    @discardableResult
    public func deny(_ requestId: String, reason: String? = nil) async throws -> ApprovalData {
        try await answer(.deny, requestId, reason)
    }

    private func answer(_ type: ClientCommandKind, _ requestId: String, _ reason: String?) async throws -> ApprovalData
    {
        var fields: [String: JSONValue] = ["requestId": .string(requestId)]
        if let reason { fields["reason"] = .string(reason) }
        return try await call(type, fields)
    }

    /// Pending approvals of this user and the badge count (refetch after ``ClientEvent/resync(_:)``).
    public func pendingApprovals() async throws -> PendingApprovals {
        try await call(.approvalsPending)
    }

    // MARK: Friend requests, connect codes, contacts

    /// Asks the user with this 8-character hex code to become a contact.
    /// Errors: `user_not_found`, `self_request`, `already_friends`, `request_already_sent`.
    @discardableResult
    public func sendFriendRequest(hexCode: String) async throws -> FriendRequestData {
        try await call(.friendRequest, ["hexCode": .string(hexCode)])
    }

    /// Pending friend requests, both directions.
    public func friendRequests() async throws -> FriendRequests {
        try await call(.friendRequests)
    }

    /// Accepts an incoming request (recipient only).
    @discardableResult
    public func acceptFriendRequest(_ requestId: String) async throws -> FriendRequestData {
        try await call(.friendRequestAccept, ["requestId": .string(requestId)])
    }

    /// Rejects an incoming request (recipient only).
    @discardableResult
    public func rejectFriendRequest(_ requestId: String) async throws -> FriendRequestData {
        try await call(.friendRequestReject, ["requestId": .string(requestId)])
    }

    /// Withdraws an outgoing request (sender only).
    @discardableResult
    public func cancelFriendRequest(_ requestId: String) async throws -> FriendRequestData {
        try await call(.friendRequestCancel, ["requestId": .string(requestId)])
    }

    /// This user's 6-digit connect code (created on first use); `regenerate` replaces it.
    public func connectCode(regenerate: Bool = false) async throws -> ConnectCodeData {
        try await call(.connectCode, regenerate ? ["regenerate": .bool(true)] : [:])
    }

    /// Becomes a contact of the code's owner. Errors: `connect_code_invalid`, `connect_code_expired`,
    /// `self_request`, `already_friends`, `rate_limited`.
    @discardableResult
    public func connect(code: String) async throws -> UserRef {
        try await call(.connect, ["code": .string(code)])
    }

    /// Every contact as this user sees it (pause state included).
    public func contacts() async throws -> [ContactStateData] {
        struct Contacts: Decodable { var contacts: [ContactStateData] }
        return try await call(.contacts, as: Contacts.self).contacts
    }

    // MARK: Push

    /// Registers this device's APNs token for alerts, with the environment it was issued for.
    public func registerAPNs(token: String, environment: APNsEnvironment) async throws {
        try await registerPush(kind: .apns, token: token, environment: environment, sessionId: nil)
    }

    /// Registers the Live Activity push-to-start token (one per device).
    public func registerLiveActivityPushToStart(token: String, environment: APNsEnvironment) async throws {
        try await registerPush(kind: .liveActivityStart, token: token, environment: environment, sessionId: nil)
    }

    /// Registers the update token of the Live Activity that shows `sessionId`.
    public func registerLiveActivityUpdate(token: String, sessionId: String, environment: APNsEnvironment) async throws
    {
        try await registerPush(kind: .liveActivityUpdate, token: token, environment: environment, sessionId: sessionId)
    }

    /// Registers this device's FCM registration token.
    public func registerFCM(token: String) async throws {
        try await registerPush(kind: .fcm, token: token, environment: nil, sessionId: nil)
    }

    private func registerPush(kind: PushTokenKind, token: String, environment: APNsEnvironment?, sessionId: String?)
        async throws
    {
        var fields: [String: JSONValue] = ["kind": .string(kind.rawValue), "token": .string(token)]
        if let environment { fields["environment"] = .string(environment.rawValue) }
        if let sessionId { fields["sessionId"] = .string(sessionId) }
        try await perform(.pushRegister, fields)
    }

    /// Registers a token of the app's own push service (`kind: webhook`: the gateway POSTs to `push.webhook_url` with
    /// it as `target`, docs/PUSH.md) — for desktops and other devices without APNs or FCM.
    public func registerWebhookPush(token: String) async throws {
        try await registerPush(kind: .webhook, token: token, environment: nil, sessionId: nil)
    }

    /// Removes a registered token of `kind` (for `.liveActivityUpdate`, the one of `sessionId`'s activity).
    public func unregisterPush(_ kind: PushTokenKind, sessionId: String? = nil) async throws {
        try await unregisterPush(kind: kind.rawValue, sessionId: sessionId)
    }

    /// Removes a registered token: `kind` is `apns`, `fcm`, `webhook`, `liveActivityStart` or `liveActivityUpdate`
    /// (with the `sessionId` of that activity). ``unregisterPush(_:sessionId:)`` is the typed form.
    public func unregisterPush(kind: String, sessionId: String? = nil) async throws {
        var fields: [String: JSONValue] = ["kind": .string(kind)]
        if let sessionId { fields["sessionId"] = .string(sessionId) }
        try await perform(.pushUnregister, fields)
    }

    /// This user's notification settings.
    public func notificationSettings() async throws -> NotificationSettings {
        try await call(.notificationSettings)
    }

    /// Changes the given settings (nil leaves one as it is); returns all of them afterwards.
    /// `showDetails: false` keeps lock-screen text generic, `true` shows message and approval text.
    @discardableResult
    public func setNotificationSettings(
        liveActivities: Bool? = nil, backgroundNotifications: Bool? = nil, timeSensitive: Bool? = nil,
        showDetails: Bool? = nil, presenceUpdates: Bool? = nil, contactUpdates: Bool? = nil
    ) async throws -> NotificationSettings {
        var fields: [String: JSONValue] = [:]
        for (name, value) in [
            ("liveActivities", liveActivities), ("backgroundNotifications", backgroundNotifications),
            ("timeSensitive", timeSensitive), ("showDetails", showDetails),
            ("presenceUpdates", presenceUpdates), ("contactUpdates", contactUpdates)
        ] {
            if let value { fields[name] = .bool(value) }
        }
        return try await call(.setNotificationSettings, fields)
    }
}
