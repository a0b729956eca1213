/// Durable records of the relationship flows (friend requests, contact pauses, connect codes, groups, invites,
/// verified phone numbers), as the store keeps them. Times are Unix milliseconds. Every record is loaded into the
/// hub at start-up (`GatewaySnapshot`); nothing here is pruned yet.

/// A friend request's lifecycle. The raw values are the wire and database strings.
public enum FriendRequestState: String, Sendable, Equatable, CaseIterable {
    case pending, accepted, rejected, cancelled
}

/// An invite's lifecycle. The raw values are the wire and database strings.
public enum InviteState: String, Sendable, Equatable, CaseIterable {
    case pending, used, revoked
}

/// A friend request from one user to another (found by the recipient's hex code).
/// Store rules: at most one `pending` request per (fromUserId, toUserId) — a UNIQUE constraint — and, through the
/// `createFriendRequest` decision, per pair in either direction; an answer changes only a `pending` request.
public struct FriendRequestRecord: Sendable, Equatable {
    public var id: String
    public var fromUserId: String
    public var toUserId: String
    public var state: FriendRequestState
    public var createdAt: Int64
    public var resolvedAt: Int64?

    public init(id: String, fromUserId: String, toUserId: String, state: FriendRequestState = .pending, createdAt: Int64, resolvedAt: Int64? = nil) {
        self.id = id; self.fromUserId = fromUserId; self.toUserId = toUserId; self.state = state
        self.createdAt = createdAt; self.resolvedAt = resolvedAt
    }
}

extension FriendRequestRecord {
    /// Whether the request is between `a` and `b`, in either direction.
    public func isBetween(_ a: String, _ b: String) -> Bool {
        (fromUserId == a && toUserId == b) || (fromUserId == b && toUserId == a)
    }
}

/// `userId` paused the contact with `contactId`. While either side has a pause, nothing flows over the contact
/// (presence, messages, contact events). One row per pausing side; resuming deletes it.
public struct ContactPauseRecord: Sendable, Equatable {
    public var userId: String
    public var contactId: String
    public var pausedAt: Int64

    public init(userId: String, contactId: String, pausedAt: Int64) {
        self.userId = userId; self.contactId = contactId; self.pausedAt = pausedAt
    }
}

/// `userId` blocked `blockedId`: no friend requests, connect-code connections or backend contacts between the two,
/// in either direction, until `userId` unblocks (deleting the row). One row per blocking side.
public struct BlockRecord: Sendable, Equatable {
    public var userId: String
    public var blockedId: String
    public var createdAt: Int64

    public init(userId: String, blockedId: String, createdAt: Int64) {
        self.userId = userId; self.blockedId = blockedId; self.createdAt = createdAt
    }
}

/// A user's 6-digit connect code. Codes are never reused: a replaced (or expired) code stays stored so that
/// connecting with it reports "expired" rather than "invalid". Store rule: `code` is unique across users.
public struct ConnectCodeRecord: Sendable, Equatable {
    /// Exactly 6 ASCII digits.
    public var code: String
    public var userId: String
    public var createdAt: Int64
    /// nil = permanent (the default); otherwise the code stops working at this time.
    public var expiresAt: Int64?
    /// Set when the user replaced the code with a new one.
    public var revokedAt: Int64?

    public init(code: String, userId: String, createdAt: Int64, expiresAt: Int64? = nil, revokedAt: Int64? = nil) {
        self.code = code; self.userId = userId; self.createdAt = createdAt; self.expiresAt = expiresAt; self.revokedAt = revokedAt
    }

    /// Whether the code had stopped connecting (replaced, or past its lifetime) at `cutoff` or before: the test of
    /// `StoreWrite.claimConnectCode`, the same in every store.
    public func isRetired(atOrBefore cutoff: Int64) -> Bool {
        revokedAt.map { $0 <= cutoff } ?? false || expiresAt.map { $0 <= cutoff } ?? false
    }
}

/// A group (family, photo circle): an owner, a size limit, optional per-role limits and who may invite.
public struct GroupRecord: Sendable, Equatable {
    public var id: String
    public var ownerId: String
    public var name: String
    /// Free-form kind chosen by the app (`family`, `photos`, …).
    public var kind: String
    /// Active members at most (owner included).
    public var maxMembers: Int
    /// `members` (any active member may invite) or `owner` (only the owner).
    public var invitePolicy: String
    /// Active members per role at most, e.g. `["parent": 2]`. Roles are 1–32 of `[a-z0-9_-]`.
    public var roleLimits: [String: Int]
    public var createdAt: Int64

    public init(id: String, ownerId: String, name: String, kind: String = "group", maxMembers: Int, invitePolicy: String = "members",
                roleLimits: [String: Int] = [:], createdAt: Int64) {
        self.id = id; self.ownerId = ownerId; self.name = name; self.kind = kind; self.maxMembers = maxMembers
        self.invitePolicy = invitePolicy; self.roleLimits = roleLimits; self.createdAt = createdAt
    }
}

/// Why one more active member does not fit a group.
public enum GroupCapacityRefusal: Error, Sendable, Equatable {
    /// `maxMembers` active members already.
    case full
    /// `limit` active members with `role` already.
    case roleFull(role: String, limit: Int)
}

extension GroupRecord {
    /// Whether one more active member with `role` fits among `members` (this group's rows; inactive ones do not
    /// count). The one rule the hub's `GroupMembership` and every store's `joinGroup` decide with.
    public func capacityRefusal(joining role: String, members: some Sequence<GroupMemberRecord>) -> GroupCapacityRefusal? {
        let active = members.filter(\.active)
        if active.count >= maxMembers { return .full }
        if let limit = roleLimits[role], active.filter({ $0.role == role }).count >= limit { return .roleFull(role: role, limit: limit) }
        return nil
    }
}

/// Membership of one user in one group; `active == false` is a soft delete (left or removed). Re-joining
/// reactivates the row and keeps `createdAt` (both stores enforce this, like contacts).
public struct GroupMemberRecord: Sendable, Equatable {
    public var groupId: String
    public var userId: String
    /// `owner`, `member`, or an app-defined role such as `parent`.
    public var role: String
    public var active: Bool
    public var createdAt: Int64

    public init(groupId: String, userId: String, role: String, active: Bool = true, createdAt: Int64) {
        self.groupId = groupId; self.userId = userId; self.role = role; self.active = active; self.createdAt = createdAt
    }
}

/// A one-time invite into a group. Store rule: `code` is unique — `upsertInvite` inserts a code only if absent and
/// rewrites it only for the same invite (`isSameInvite`), else fails with `StoreConflict.inviteCodeTaken`.
public struct InviteRecord: Sendable, Equatable {
    /// 8 characters of `ABCDEFGHJKMNPQRSTUVWXYZ23456789` (no look-alikes).
    public var code: String
    public var groupId: String
    public var inviterId: String
    /// The normalised phone (E.164) or lower-cased e-mail the invite was sent to; nil for a shareable code.
    public var recipient: String?
    /// Role the redeemer gets.
    public var role: String
    public var state: InviteState
    public var createdAt: Int64
    public var expiresAt: Int64
    public var usedBy: String?
    public var usedAt: Int64?

    public init(code: String, groupId: String, inviterId: String, recipient: String? = nil, role: String = "member",
                state: InviteState = .pending, createdAt: Int64, expiresAt: Int64, usedBy: String? = nil, usedAt: Int64? = nil) {
        self.code = code; self.groupId = groupId; self.inviterId = inviterId; self.recipient = recipient; self.role = role
        self.state = state; self.createdAt = createdAt; self.expiresAt = expiresAt; self.usedBy = usedBy; self.usedAt = usedAt
    }

    /// Whether `other` is this invite (in any state): same code, group, inviter and creation time. Two nodes drawing
    /// one code for two invites differ in at least one of these.
    public func isSameInvite(as other: InviteRecord) -> Bool {
        code == other.code && groupId == other.groupId && inviterId == other.inviterId && createdAt == other.createdAt
    }
}

/// A verified phone number attached to a user by the app backend. Store rules: one phone per user, and a phone
/// belongs to at most one user (UNIQUE).
public struct UserPhoneRecord: Sendable, Equatable {
    public var userId: String
    /// E.164, e.g. `+4915112345678`.
    public var phone: String
    public var verifiedAt: Int64

    public init(userId: String, phone: String, verifiedAt: Int64) {
        self.userId = userId; self.phone = phone; self.verifiedAt = verifiedAt
    }
}
