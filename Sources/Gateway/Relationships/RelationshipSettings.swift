/// Rules of the relationship flows that deployments tune. Times are milliseconds.
public struct RelationshipSettings: Sendable, Equatable {
    /// Lifetime of a connect code; nil = permanent until the user regenerates it.
    public var connectCodeLifetimeMs: Int64?
    /// Regenerations (`connect_code` with `regenerate: true`) a user may make per sliding hour, and the whole node
    /// (every node together when they share their limits): each one retires a code into quarantine, so unlimited
    /// regeneration would use up the 10⁶ codes and nobody could get one.
    public var connectCodeRegenerationsPerUserPerHour = 10
    public var connectCodeRegenerationsPerNodePerHour = 300
    /// How long a retired code (replaced or expired) stays out of the pool: meanwhile it answers
    /// `connect_code_expired`; after it, it may be drawn for anyone (then whoever types it reaches the new owner).
    public var connectCodeQuarantineMs: Int64 = 7 * 86_400_000
    /// Invite lifetime when the inviter does not choose one (7 days) and the longest allowed (30 days).
    public var defaultInviteHours = 168
    public var maxInviteHours = 720
    /// The same phone/e-mail is not invited to the same group twice within this window (24 h).
    public var inviteRepeatWindowMs: Int64 = 86_400_000
    /// Invites one user may make, and the whole node accepts, per sliding window of `inviteLimitWindowMs` (24 h):
    /// every invite is a text sent by SMS or e-mail (or a stored code), quoting a name its inviter chose.
    /// `relationships.invites_per_user_per_day` and `relationships.invites_per_node_per_day`.
    public var invitesPerUserPerDay = 30
    public var invitesPerNodePerDay = 2_000
    public var inviteLimitWindowMs: Int64 = 86_400_000
    /// Failed invite redemptions (unknown codes: guesses) per sliding hour: per user, per source address (an IPv4
    /// address, an IPv6 /64; socket commands only) and for the whole node. Fresh identities are free in standalone
    /// mode, so the address and node limits are what bound an attacker with many accounts.
    public var inviteRedeemFailuresPerUserPerHour = 20
    public var inviteRedeemFailuresPerAddressPerHour = 60
    public var inviteRedeemFailuresPerNodePerHour = 600
    /// Group size when the creator does not set one, and the largest size allowed.
    public var defaultGroupMembers = 12
    public var maxGroupMembers = 256
    /// Discovery: entries per request, and entries per user per window (sliding), so the endpoint cannot
    /// enumerate the user base. The window is kept in memory (a restart resets it).
    public var discoveryMaxEntriesPerRequest = 500
    public var discoveryMaxEntriesPerWindow = 2_000
    /// Discovery entries per source address (an IPv4 address, an IPv6 /64) per window, all its users together:
    /// identities are cheap (standalone registration), so without it every new identity from one address would bring
    /// a fresh 2 000. Device requests only; the server API has no source address.
    public var discoveryMaxEntriesPerAddressPerWindow = 4_000
    /// Discovery entries the whole node answers per window (every node together when they share their limits): fresh
    /// addresses do not bring fresh allowances beyond it.
    public var discoveryMaxEntriesPerNodePerWindow = 100_000
    public var discoveryWindowMs: Int64 = 86_400_000
    /// Friend requests one user may send per sliding hour (to users that exist, whatever the answer), so knowing
    /// hex codes does not let one account write into many strangers' logs. `relationships.friend_requests_per_hour`.
    public var friendRequestsPerHour = 30
    /// Requests and cancels from one sender to one recipient per sliding hour: a request and its cancel are two
    /// durable events in the recipient's log, so this bounds what one sender writes there.
    /// `relationships.friend_requests_per_pair_per_hour`.
    public var friendRequestsPerPairPerHour = 6
    /// `friend_request`s to hex codes nobody has (`user_not_found`), per sliding hour: per user, per source address
    /// (all its users together) and for the whole node — so 8 hex digits cannot be enumerated (docs/LIMITS.md,
    /// "The cost of guessing"). `relationships.hex_code_misses_per_user_per_hour`, `…_per_address_per_hour`,
    /// `…_per_node_per_hour`.
    public var hexCodeMissesPerUserPerHour = 20
    public var hexCodeMissesPerAddressPerHour = 60
    public var hexCodeMissesPerNodePerHour = 600
    public init() {}
}
