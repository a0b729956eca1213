/// `[relationships]`: friend requests, connect codes, groups, invites and contact discovery (docs/PROTOCOL.md).
public struct RelationshipsSection: Sendable, Equatable {
    /// 0 = connect codes are permanent until the user regenerates them.
    public var connectCodeLifetimeHours: Int = 0
    public var defaultInviteHours: Int = 168
    public var maxInviteHours: Int = 720
    public var defaultGroupMembers: Int = 12
    public var maxGroupMembers: Int = 256
    public var discoveryMaxPerRequest: Int = 500
    public var discoveryMaxPerDay: Int = 2000
    /// Invites one user may make, and the node accepts in all, per sliding 24 hours (each may be an SMS or e-mail).
    public var invitesPerUserPerDay: Int = 30
    public var invitesPerNodePerDay: Int = 2000
    /// Friend requests per sender per sliding hour, and requests plus cancels per sender → recipient pair.
    public var friendRequestsPerHour: Int = 30
    public var friendRequestsPerPairPerHour: Int = 6
    /// `friend_request`s to hex codes nobody has, per sliding hour: per user, per source address, per node.
    public var hexCodeMissesPerUserPerHour: Int = 20
    public var hexCodeMissesPerAddressPerHour: Int = 60
    public var hexCodeMissesPerNodePerHour: Int = 600
    /// Invite texts (SMS/e-mail) are POSTed here for the app to deliver; empty = invites are created but not delivered.
    public var inviteWebhookURL: String = ""
    public init() {}
}
