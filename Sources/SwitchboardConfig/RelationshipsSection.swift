/// `[relationships]`: friend requests, connect codes, groups, invites and contact discovery (docs/PROTOCOL.md).
public struct RelationshipsSection: Sendable, Equatable {
    /// 0 = connect codes are permanent until the user regenerates them.
    public var connectCodeLifetimeHours: Int = 0
    /// Connect-code replacements per user per hour, and for the node (the cluster, with `cluster.redis_url`).
    public var connectCodeRegenerationsPerHour: Int = 10
    public var connectCodeRegenerationsPerNodePerHour: Int = 300
    /// Hours a replaced or expired code stays out of the pool before it may be handed to someone else.
    public var connectCodeQuarantineHours: Int = 168
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
    /// Discovery entries per source address per 24 hours, all its users together.
    public var discoveryMaxPerAddressPerDay: Int = 4000
    /// Discovery entries the node (the cluster, with `cluster.redis_url`) answers per 24 hours.
    public var discoveryMaxPerNodePerDay: Int = 100_000
    /// `connect` with a code nobody has, per sliding hour: per user, per source address, per node.
    public var connectFailuresPerUserPerHour: Int = 20
    public var connectFailuresPerAddressPerHour: Int = 60
    public var connectFailuresPerNodePerHour: Int = 600
    /// `invite_redeem` with a code nobody has, per sliding hour: per user, per source address, per node.
    public var inviteRedeemFailuresPerUserPerHour: Int = 20
    public var inviteRedeemFailuresPerAddressPerHour: Int = 60
    public var inviteRedeemFailuresPerNodePerHour: Int = 600
    /// Invite texts (SMS/e-mail) are POSTed here for the app to deliver; empty = invites are created but not delivered.
    public var inviteWebhookURL: String = ""
    public init() {}
}
