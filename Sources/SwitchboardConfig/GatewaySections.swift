/// `[auth]`: how clients and app backends prove who they are.
public struct AuthSection: Sendable, Equatable {
    /// Shared secret for HS256 client tokens (the app backend signs with it). Empty: a random secret is generated
    /// and kept beside the database, which is what standalone mode (`/v1/devices/register`) uses.
    public var hs256Secret: String = ""
    /// PEM file with the app backend's P-256 public key for ES256 client tokens. Empty: ES256 off.
    public var es256PublicKeyFile: String = ""
    /// Required `aud` claim; empty = not checked.
    public var audience: String = ""
    /// Required `iss` claim; empty = not checked.
    public var issuer: String = ""
    public var leewaySeconds: Int = 30
    /// A connection without a token on the upgrade must send `auth` within this time.
    public var timeoutMs: Int = 5000
    /// Keys app backends send as `Authorization: Bearer <key>` to the server API. Empty: the server API is off.
    public var apiKeys: [String] = []
    /// Serve `POST /v1/devices/register` (devices without an app backend); `auto` resolves against `apiKeys`
    /// (see ``SwitchboardConfiguration/standaloneEnabled``).
    public var standalone: StandaloneModeName = .auto
    /// New standalone registrations (an unknown secret) per sliding hour from one source address, and for the node.
    public var registrationsPerAddressPerHour: Int = 120
    public var registrationsPerNodePerHour: Int = 600
    public init() {}
}

/// `[storage]`: the embedded SQLite database.
public struct StorageSection: Sendable, Equatable {
    public var path: String = "switchboard.db"
    /// `normal` survives a process crash (kill -9); `full` also survives power loss, slower.
    public var synchronous: SynchronousName = .normal
    /// A commit's WAL frames reach the OS as one `pwrite` (the `sb-wal` VFS); `false` uses SQLite's default VFS.
    public var gatherWalWrites: Bool = true
    /// Events older than this may be pruned (clients resuming from before get `recovered: false`)…
    public var retentionHours: Int = 168
    /// …but each user's newest events are always kept.
    public var keepLatestEvents: Int = 1000
    public init() {}
}

public enum SynchronousName: String, Sendable, CaseIterable {
    case normal
    case full
}

/// `[gateway]`: domain rules.
public struct GatewaySection: Sendable, Equatable {
    public var approvalTimeoutMs: Int = 60_000
    public var approvalMinTimeoutMs: Int = 1_000
    public var approvalMaxTimeoutMs: Int = 600_000
    public var presenceGraceMs: Int = 5_000
    public var maxMessageCharacters: Int = 500
    /// A pushable event a device with an open socket has not acknowledged within this time is pushed to it; 0 = off
    /// (only devices without a socket, or in background, get pushes).
    public var pushAckDelayMs: Int = 5_000
    /// The same for approval requests; when the file leaves it out, ``SwitchboardConfiguration/parse(_:fileName:)``
    /// sets it to `pushAckDelayMs`. 0 = off.
    public var approvalPushDelayMs: Int = 5_000
    /// Commands read and not yet answered, node-wide, before new ones are refused with `overloaded`.
    public var maxPendingCommands: Int = 1_024
    /// Commands one socket may have pending before its next ones are refused with `overloaded`.
    public var maxPendingCommandsPerConnection: Int = 256
    /// Commands all of one user's sockets on the node may have pending together before more are refused `overloaded`.
    public var maxPendingCommandsPerUser: Int = 512
    /// Authenticated sockets one user may have open on the node; one more is refused (HTTP 429, or close 4029).
    public var maxSocketsPerUser: Int = 32
    /// Events a resume reads from the store at a time; the next part only once the socket has sent and drained this one.
    public var replayChunkEvents: Int = 64
    /// The retry hint (`retryAfterMs`) sent with `overloaded`.
    public var overloadRetryAfterMs: Int = 100
    /// POSTed a signed JSON body whenever an approval is decided or times out; empty = off.
    public var approvalWebhookURL: String = ""
    /// The Standard Webhooks secret (`whsec_` + base64) signing every backend webhook; required with
    /// `approval_webhook_url` or `relationships.invite_webhook_url`.
    public var webhookSecret: String = ""
    /// Also POST `user_online` / `user_offline` (after the presence grace) to `approval_webhook_url`.
    public var presenceWebhook: Bool = false
    /// Idempotency keys (with their answers) the node keeps in memory, so a retry is answered without a store read;
    /// 0 = none (every retry reads the store, which keeps every key).
    public var idempotencyMemoryKeys: Int = 4_096
    public init() {}
}
