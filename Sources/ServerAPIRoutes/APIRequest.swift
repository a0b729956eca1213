import GatewayProtocol

/// One server API request, typed: the route the method and path name, the ids the path carries (each already
/// checked against the id grammar) and the decoded body. The gateway runtime's `ServerAPI` executes it; nothing here
/// touches the hub. Documented with curl examples in docs/PROTOCOL.md.
public enum APIRequest: Sendable, Equatable {
    // Device endpoints (standalone registration; the caller's own display name)
    case registerDevice(RegisterBody)
    case setOwnDisplayName(DisplayNameBody)
    /// `DELETE /v1/users/me`: the caller's user, with everything of theirs.
    case deleteOwnUser
    /// `DELETE /v1/users/me/devices/{deviceId}`: one device of the caller's user (itself included).
    case revokeOwnDevice(deviceId: String)

    // Users, contacts, sessions, approvals, push (the backend, with its API key)
    case upsertUser(UserBody)
    case getUser(userId: String)
    /// `DELETE /v1/users/{id}`.
    case deleteUser(userId: String)
    /// `DELETE /v1/users/{id}/devices/{deviceId}` (`userId` always set).
    case revokeDevice(APIDeviceRef)
    case pendingApprovals(userId: String)
    /// `idempotencyKey` is the `Idempotency-Key` header when sent, else the body's.
    case publishUserEvent(userId: String, PublishBody, idempotencyKey: String?)
    case addContact(ContactBody)
    case removeContact(ContactBody)
    case createSession(SessionBody)
    case getSession(sessionId: String)
    case postSessionEvent(sessionId: String, SessionEventBody)
    case endSession(sessionId: String)
    /// `idempotencyKey` is the `Idempotency-Key` header when sent, else the body's.
    case requestApproval(sessionId: String, ApprovalBody, idempotencyKey: String?)
    case registerPushToken(APIDeviceRef, PushRegisterCommand)
    case unregisterPushToken(APIDeviceRef, PushUnregisterCommand)
    case setNotificationSettings(userId: String, NotificationSettingsCommand)
    /// `waitMs`: the long-poll's `?wait=` in milliseconds (0...``APIRoutes/maxWaitMs``).
    case getApproval(approvalId: String, waitMs: Int64)

    // Relationships (the backend acting for the user its body or path names)
    case setPhone(userId: String, PhoneBody)
    case removePhone(userId: String)
    case contacts(userId: String)
    case friendRequests(userId: String)
    case blocks(userId: String)
    case block(userId: String, otherId: String)
    case unblock(userId: String, otherId: String)
    case connectCode(userId: String)
    case regenerateConnectCode(userId: String)
    case discover(userId: String, DiscoverBody)
    case sendFriendRequest(FriendRequestBody)
    case answerFriendRequest(requestId: String, FriendRequestAnswer, ActorBody)
    case connect(ConnectBody)
    case pauseContact(PauseBody)
    case resumeContact(PauseBody)
    case createGroup(GroupBody)
    case getGroup(groupId: String)
    case addGroupMember(groupId: String, MemberBody)
    case removeGroupMember(groupId: String, userId: String)
    case createInvite(groupId: String, InviteBody)
    case sendGroupEvent(groupId: String, GroupEventBody)
    case redeemInvite(code: String, ActorBody)
}

/// A device the backend names: by its id alone (`/v1/devices/{id}/…`, while one user has that id) or with its user
/// (`/v1/users/{userId}/devices/{id}/…`).
public struct APIDeviceRef: Sendable, Equatable {
    public var userId: String?
    public var deviceId: String
    public init(userId: String?, deviceId: String) { self.userId = userId; self.deviceId = deviceId }
}

/// How the addressee of a friend request (or its sender, cancelling) answers it.
public enum FriendRequestAnswer: String, Sendable, Equatable, CaseIterable {
    case accept, reject, cancel
}

/// Who may call a route: anyone (standalone registration, when it is on), a device with its client token, or a
/// backend with an API key.
public enum APICaller: Sendable, Equatable {
    case anyone
    case device
    case backend
}
