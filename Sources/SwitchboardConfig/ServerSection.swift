/// The `[server]` section: listeners, threads and process lifetime.
///
/// Plain value; the ranges below are enforced by ``SwitchboardConfiguration/parse(_:fileName:)``
/// and again by ``SwitchboardConfiguration/validate()`` after command-line overrides.
public struct ServerSection: Sendable, Equatable {
    /// `server.listen`: plain HTTP/WebSocket listener; `nil` (written `""`) disables it.
    public var listen: ListenAddress? = ListenAddress(host: "127.0.0.1", port: 7420)
    /// `server.tls_listen`: TLS listener; `nil` (`""`) disables it. Requires `tlsCert` and `tlsKey`.
    public var tlsListen: ListenAddress? = nil
    /// `server.tls_cert`: PEM certificate chain file; read by the TLS target, not checked here.
    public var tlsCert: String = ""
    /// `server.tls_key`: PEM private key file.
    public var tlsKey: String = ""
    /// `server.event_loops`: 0 = one per CPU core, else 1...256 loops (threads).
    public var eventLoops: Int = 0
    /// `server.echo`: serve the echo endpoint on every path not otherwise routed.
    public var echo: Bool = false
    /// `server.drain_timeout_ms`: after SIGINT/SIGTERM, how long clients get to close (0...60000).
    public var drainTimeoutMs: Int = 5000
    /// `server.max_connections`: accepted connections above this are closed at once (1...10000000).
    public var maxConnections: Int = 20000
    /// `server.trusted_proxies`: peers (IP addresses or CIDR networks) whose `X-Forwarded-For` names the client for
    /// per-address limits; empty (default): the TCP peer is the client.
    public var trustedProxies: [String] = []
    /// `server.demo`: serve the `/demo` page (see ``SwitchboardConfiguration/demoEnabled``).
    public var demo: DemoModeName = .auto

    /// The embedded defaults.
    public init() {}
}
