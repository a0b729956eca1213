/// How `PostgresGatewayStore` reaches its database.
public struct PostgresStoreOptions: Sendable {
    /// A libpq URL or connection string (`postgresql://switchboard@db.internal/switchboard`).
    public var url: String
    /// Overrides a password in the URL (read by the caller from a file or the environment).
    public var password: String?
    /// Bound on each connect (libpq's minimum is 2 s).
    public var connectTimeoutSeconds = 5
    /// The server cancels any statement running longer (0 = no limit). A cancelled write fails its group with a
    /// retryable error; nothing of it is kept.
    public var statementTimeoutMs = 10_000
    /// The most `StoreWrite`s grouped into one transaction (a larger batch still commits alone).
    public var maxBatchWrites = 5000
    /// Sent as `application_name` (visible in `pg_stat_activity`): the node id.
    public var applicationName = "switchboard"

    public init(url: String) { self.url = url }

    /// The URL without a password, for messages and logs: `postgresql://user:secret@host/db` →
    /// `postgresql://user:***@host/db`, and any `password=…` parameter → `password=***`.
    public var redactedURL: String {
        var text = Substring(url)
        var out = ""
        if let scheme = text.firstRange(of: "://") {
            let authority = text[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                out += text[..<text.index(after: colon)] + "***"
                text = text[at...]
            }
        }
        while let key = text.firstRange(of: "password=") {
            out += text[..<key.upperBound] + "***"
            text = text[key.upperBound...].drop { $0 != " " && $0 != "&" }
        }
        return out + text
    }
}
