import HTTP1
import WebSocketDeflate

/// Everything the running server needs, already validated. Built from `SwitchboardConfiguration` by the executable
/// (see `ServerSettings+Configuration.swift`) or directly by tests.
public struct ServerSettings: Sendable {
    public struct Endpoint: Sendable, Equatable {
        public var host: String
        public var port: UInt16
        public init(host: String, port: UInt16) { self.host = host; self.port = port }
    }

    public struct WebSocket: Sendable {
        public var maxMessageBytes = 64 * 1024
        public var maxFrameBytes = 64 * 1024
        public var handshakeTimeoutMs: UInt64 = 10_000
        public var pingIntervalMs: UInt64 = 30_000
        public var pongTimeoutMs: UInt64 = 20_000
        public var closeTimeoutMs: UInt64 = 5_000
        public var maxOutboundBytes = 4 * 1024 * 1024
        public var allowedOrigins: [String] = []
        public var subprotocols: [String] = []
        public var compression = PerMessageDeflateSettings()
        /// Messages shorter than this are sent uncompressed even when deflate was negotiated.
        public var compressionThresholdBytes = 64
        public init() {}
    }

    public var listen: Endpoint? = Endpoint(host: "127.0.0.1", port: 7420)
    public var tlsListen: Endpoint?
    public var tlsCertificateFile: String?
    public var tlsPrivateKeyFile: String?
    /// 0 = one loop per CPU core.
    public var eventLoops = 0
    public var echo = false
    public var drainTimeoutMs: UInt64 = 5_000
    public var maxConnections = 20_000
    /// `server.trusted_proxies`: peers (addresses or CIDR networks) whose `X-Forwarded-For` names the client for
    /// per-address limits; from any other peer the header is ignored.
    public var trustedProxies: [String] = [] { didSet { trustedNetworks = TrustedProxies(trustedProxies) } }
    public var trustedNetworks = TrustedProxies([])
    public var httpLimits = HTTPLimits()
    public var keepAliveTimeoutMs: UInt64 = 30_000
    public var webSocket = WebSocket()
    public var metricsEnabled = true

    public init() {}
}
