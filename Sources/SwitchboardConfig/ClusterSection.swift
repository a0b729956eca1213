/// `[cluster]`: several nodes sharing one PostgreSQL database (docs/CLUSTER.md). With `postgres_url` empty (the
/// default) the node keeps the embedded SQLite database of `[storage]`.
public struct ClusterSection: Sendable, Equatable {
    /// libpq URL of the shared database, e.g. "postgresql://switchboard@db.internal:5432/switchboard". Empty: SQLite.
    public var postgresURL: String = ""
    /// A file holding the database password (one line; a trailing newline is ignored). Empty: the password comes from
    /// the URL, `SWITCHBOARD_POSTGRES_PASSWORD`, or libpq's own `PGPASSWORD` / `~/.pgpass`.
    public var postgresPasswordFile: String = ""
    /// Redis for cross-node delivery (docs/CLUSTER.md): `redis://[[user]:password@]host[:port]` or `unix:///path`.
    /// Empty: each node delivers only the events it committed itself until a device resumes.
    public var redisURL: String = ""
    /// This node's name in logs and `pg_stat_activity`; empty = the host name.
    public var nodeID: String = ""
    /// Bound on each connect to PostgreSQL (libpq counts whole seconds, at least 2).
    public var connectTimeoutMs: Int = 5_000
    /// The server cancels any statement running longer; 0 = no limit.
    public var statementTimeoutMs: Int = 10_000
    /// With `redis_url`: how often this node repeats the device counts of the users connected to it (presence across
    /// nodes, docs/CLUSTER.md).
    public var presenceRefreshMs: Int = 2_000
    /// With `redis_url`: how long another node's counts are believed without a repeat; a node that died without a
    /// word has its devices counted out after at most this plus one refresh. At least twice `presenceRefreshMs`.
    public var presenceTtlMs: Int = 6_000
    /// With `redis_url` while Redis is unreachable: how often each node re-reads its connected users' logs for events
    /// other nodes committed (they arrive this late at most, and arrive).
    public var recheckIntervalMs: Int = 1_000
    public init() {}

    /// Whether this node uses the shared PostgreSQL database.
    public var usesPostgres: Bool { !postgresURL.isEmpty }

    static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    static func isRedisURL(_ text: String) -> Bool {
        text.hasPrefix("redis://") || text.hasPrefix("unix:///")
    }

    /// Letters, digits, `.`, `_`, `-`; at most 64.
    static func isNodeID(_ text: String) -> Bool {
        text.utf8.count <= 64 && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}
