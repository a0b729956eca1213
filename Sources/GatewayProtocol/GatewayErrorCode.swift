/// Stable error codes in `reply` frames and HTTP API errors. Clients match on these; messages are for people.
public enum GatewayErrorCode: String, Sendable, Codable {
    // Request shape
    case invalidJSON = "invalid_json"
    case unknownType = "unknown_type"
    case missingField = "missing_field"
    case invalidField = "invalid_field"
    /// A user, device, session or group id outside the id grammar (`Identifier`).
    case invalidID = "invalid_id"
    case messageTooLarge = "message_too_large"
    // Identity
    case unauthenticated = "unauthenticated"
    case tokenInvalid = "token_invalid"
    case forbidden = "forbidden"
    case alreadyAuthenticated = "already_authenticated"
    /// A standalone `deviceToken` too short or too repetitive to be a secret (`DeviceSecretRule`).
    case deviceTokenTooWeak = "device_token_too_weak"
    // Domain
    case notFound = "not_found"
    case userNotFound = "user_not_found"
    case notAContact = "not_a_contact"
    case textEmpty = "text_empty"
    case textTooLong = "text_too_long"
    case sessionNotFound = "session_not_found"
    case sessionEnded = "session_ended"
    case approvalNotFound = "approval_not_found"
    case approvalAlreadyResolved = "approval_already_resolved"
    case approvalExpired = "approval_expired"
    case timeoutOutOfRange = "timeout_out_of_range"
    case displayNameInvalid = "display_name_invalid"
    case rateLimited = "rate_limited"
    case idempotencyKeyReused = "idempotency_key_reused"
    case storageFailed = "storage_failed"
    /// The node, the user's sockets together or this socket is at its bound of pending commands; retry after the
    /// error's `retryAfterMs`.
    case overloaded = "overloaded"
    /// The user already has `gateway.max_sockets_per_user` sockets open on this node.
    case tooManySockets = "too_many_sockets"
    case internalError = "internal_error"
    // Relationships (friend requests, connect codes, pauses, groups, invites, discovery)
    case requestAlreadySent = "request_already_sent"
    case alreadyFriends = "already_friends"
    case selfRequest = "self_request"
    case requestNotFound = "request_not_found"
    case requestAlreadyResolved = "request_already_resolved"
    case connectCodeInvalid = "connect_code_invalid"
    case connectCodeExpired = "connect_code_expired"
    case contactPaused = "contact_paused"
    /// The caller blocked the other user (a friend request, a connect code, a backend contact): unblock first.
    case userBlocked = "user_blocked"
    case groupNotFound = "group_not_found"
    case groupFull = "group_full"
    case notAMember = "not_a_member"
    case alreadyMember = "already_member"
    case inviteNotFound = "invite_not_found"
    case inviteExpired = "invite_expired"
    case inviteUsed = "invite_used"
    /// The invite's inviter left the group or was removed: nobody can redeem it.
    case inviteRevoked = "invite_revoked"
    case phoneInvalid = "phone_invalid"
    /// The device token belongs to a revoked device or a deleted user (issued before the revocation).
    case tokenRevoked = "token_revoked"
}

/// WebSocket close codes the gateway uses beyond RFC 6455's (4000–4999 is the application range).
/// 4xxx codes mean "do not reconnect without changing something"; 1001/1011/1013 mean "reconnect with backoff".
public enum GatewayCloseCode {
    /// No valid token on the upgrade and no `auth` command within `auth.timeout_ms`.
    public static let authenticationTimeout: UInt16 = 4001
    /// The token in the `auth` command was rejected.
    public static let authenticationFailed: UInt16 = 4003
    /// The user already has `gateway.max_sockets_per_user` sockets open on this node (authenticated with `auth`; with
    /// a token on the upgrade the upgrade itself is refused with HTTP 429). Reconnect only after closing another.
    public static let tooManySockets: UInt16 = 4029
    /// The user was deleted (`DELETE /v1/users/{id}` or `/v1/users/me`): every socket of theirs closes, and a token
    /// issued before the deletion is refused with it. Do not reconnect; sign out.
    public static let accountDeleted: UInt16 = 4010
    /// This device was revoked (`DELETE …/devices/{deviceId}`): its sockets close, and a token of the device issued
    /// before the revocation is refused with it. Do not reconnect with that token; sign in again.
    public static let deviceRevoked: UInt16 = 4011
}
