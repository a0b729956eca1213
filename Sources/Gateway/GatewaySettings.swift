/// Domain rules that deployments tune (from the `[gateway]` config section).
public struct GatewaySettings: Sendable, Equatable {
    /// Approval timeout when the backend does not pass one.
    public var approvalDefaultTimeoutMs: Int64 = 60_000
    public var approvalMinTimeoutMs: Int64 = 1_000
    public var approvalMaxTimeoutMs: Int64 = 600_000
    /// How long a user stays "online" after the last device disconnects, so a quick reconnect does not flicker.
    public var presenceGraceMs: Int64 = 5_000
    /// Direct message length in characters after trimming.
    public var maxMessageCharacters = 500
    public var historyPageLimit = 100
    /// Events one store read takes when another node's events are caught up (GatewayHub+Cluster); more are read in
    /// further reads of this size.
    public var maxReplayEvents = 10_000
    /// Events a resume reads from the store at a time (`gateway.replay_chunk_events`). The next part is read only
    /// when the device's socket has sent the previous one and its outbound queue has drained, so a replay holds at
    /// most one part per socket (plus the socket's own queue up to its low-water mark) however long the log is.
    public var replayChunkEvents = 64
    /// A pushable event that a device with an open socket (in foreground) has not acknowledged (`ack` of its offset or
    /// a later one) within this time is pushed to that device: a suspended app's socket looks open while nobody reads
    /// it (`DeliveryMachine`). 0 turns it off. `gateway.push_ack_delay_ms`.
    public var pushAckDelayMs: Int64 = 5_000
    /// `pushAckDelayMs` for approval requests: a device with an open socket that has not acknowledged one within
    /// this time is pushed it, so a connected but asleep phone still rings. 0 turns it off.
    /// `gateway.approval_push_delay_ms`, which defaults to `gateway.push_ack_delay_ms`.
    public var approvalPushDelayMs: Int64 = 5_000
    /// Presence pushes (for users who opted in) are coalesced to at most one per this interval per user.
    public var presencePushIntervalMs: Int64 = 60_000
    /// Failed connect-code attempts (a code nobody has) one user may make per hour
    /// (`relationships.connect_failures_per_user_per_hour`).
    public var connectFailuresPerUserPerHour = 20
    /// Failed connect-code attempts the whole node accepts per hour (all users and addresses together), on top of each
    /// user's and each address's limit: fresh identities and fresh addresses cannot buy fresh tries. docs/PROTOCOL.md has what it means for guessing.
    public var connectFailuresPerNodePerHour = 600
    /// Failed connect-code attempts one source address (an IPv4 address, an IPv6 /64) may make per hour, all its
    /// users together.
    public var connectFailuresPerAddressPerHour = 60
    /// New standalone registrations (`POST /v1/devices/register` with an unknown secret) the node accepts per hour.
    public var registrationsPerNodePerHour = 600
    /// New standalone registrations one source address may make per hour.
    public var registrationsPerAddressPerHour = 120
    /// How often the hub asks the store for pending approvals past their deadline (`pendingApprovals(dueBy:)`) and
    /// times them out: approvals other nodes created, whose creator may be gone. 0 (the default, one node): off, the
    /// hub's own deadline timers cover every approval it knows.
    public var approvalSweepIntervalMs: Int64 = 0
    /// Idempotency keys (with their answers) the node remembers, so a retry is answered without a store read; a key
    /// not remembered is read from the store (which keeps every key). 0 remembers none. `gateway.idempotency_memory_keys`.
    public var idempotencyMemoryKeys = 4_096
    /// Users whose records (user, devices, contacts, push tokens, settings, latest offset) the node keeps in memory at
    /// most; beyond it the least recently used idle ones (no device connected here, no write or read in flight, no
    /// timer) are forgotten and read again when next needed (docs/ARCHITECTURE.md, "Memory and load on demand").
    /// Users in use are never forgotten, so the count can exceed it. Not in the config file yet.
    public var userCacheCapacity = 100_000
    /// With a cluster bus that is down (Redis unreachable): how often every connected user's log is re-read for
    /// events other nodes committed, so they arrive late but arrive; also the pause before a failed catch-up read is
    /// tried again. `cluster.recheck_interval_ms`.
    public var clusterRecheckIntervalMs: Int64 = 1_000
    /// With a cluster bus: how often a node repeats the device counts of the users connected to it, and how long
    /// another node believes them without a repeat. A node that dies without a word (`kill -9`) has its users' devices
    /// counted out after at most TTL + refresh, then the grace period runs (docs/CLUSTER.md, "Presence across
    /// nodes"). `cluster.presence_refresh_ms` and `cluster.presence_ttl_ms`.
    public var clusterPresenceRefreshMs: Int64 = 2_000
    public var clusterPresenceTtlMs: Int64 = 6_000
    /// Live Activity update tokens (one per session) a device keeps at most; registering one more replaces the one
    /// registered longest ago. `push.live_activity_tokens_per_device`.
    public var liveActivityTokensPerDevice = 16
    /// Friend requests, connect codes, groups, invites and discovery.
    public var relationships = RelationshipSettings()
    /// The events written to the outbox for the app's backend (signed webhooks; off until their URL is configured).
    public var backendWebhooks = BackendWebhookSettings()
    public init() {}
}
