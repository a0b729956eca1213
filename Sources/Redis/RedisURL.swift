/// Where to reach Redis and how to log in, from `cluster.redis_url`: `redis://[[user]:password@]host[:port][/db]` or
/// `unix:///path/to/redis.sock`. The database number is accepted and ignored: publish/subscribe is not per database.
public struct RedisEndpoint: Sendable, Equatable {
    public var address: RedisAddress
    public var user: String?
    public var password: String?

    /// nil with the reason when the URL cannot be used (`rediss://`: TLS to Redis is not supported yet).
    public static func parse(_ url: String) -> Result<RedisEndpoint, RedisError> {
        if url.hasPrefix("unix://") {
            let path = String(url.dropFirst("unix://".count))
            guard path.hasPrefix("/") else { return .failure(RedisError("expected unix:///absolute/path, got \(url)")) }
            return .success(RedisEndpoint(address: .unix(path: path)))
        }
        if url.hasPrefix("rediss://") { return .failure(RedisError("rediss:// (TLS) is not supported yet: use redis:// or unix://")) }
        guard url.hasPrefix("redis://") else { return .failure(RedisError("expected redis:// or unix://")) }
        var rest = Substring(url.dropFirst("redis://".count))
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var endpoint = RedisEndpoint(address: .tcp(host: "", port: 6379))
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let user = credentials[..<colon]
                endpoint.user = user.isEmpty ? nil : String(user)
                endpoint.password = String(credentials[credentials.index(after: colon)...])
            } else {
                endpoint.password = String(credentials)
            }
        }
        var host = rest
        var port = 6379
        if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
            host = rest[..<colon]
            guard let number = Int(rest[rest.index(after: colon)...]), (1...65535).contains(number) else {
                return .failure(RedisError("expected a port number 1-65535"))
            }
            port = number
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { return .failure(RedisError("expected a host")) }
        endpoint.address = .tcp(host: String(host), port: port)
        return .success(endpoint)
    }

    public init(address: RedisAddress, user: String? = nil, password: String? = nil) {
        self.address = address
        self.user = user
        self.password = password
    }

    /// Connects and logs in (`AUTH`) when a password is set.
    public func connect(timeoutMs: Int, readTimeoutMs: Int? = nil) throws(RedisError) -> RedisConnection {
        let connection = try RedisConnection(address, timeoutMs: timeoutMs, readTimeoutMs: readTimeoutMs)
        if let password {
            try connection.command(user.map { ["AUTH", $0, password] } ?? ["AUTH", password])
        }
        return connection
    }
}
