import HTTP1
import SwitchboardConfig
import WebSocketDeflate

extension ServerSettings {
    /// The runtime settings for a validated configuration file (plus command-line overrides already applied to it).
    public init(_ config: SwitchboardConfiguration) {
        self.init()
        let server = config.server
        listen = server.listen.map { Endpoint(host: $0.host, port: $0.port) }
        tlsListen = server.tlsListen.map { Endpoint(host: $0.host, port: $0.port) }
        tlsCertificateFile = server.tlsCert.isEmpty ? nil : server.tlsCert
        tlsPrivateKeyFile = server.tlsKey.isEmpty ? nil : server.tlsKey
        eventLoops = server.eventLoops
        echo = server.echo
        drainTimeoutMs = UInt64(server.drainTimeoutMs)
        maxConnections = server.maxConnections

        let http = config.http
        httpLimits = HTTPLimits(maxRequestLineBytes: http.maxRequestLineBytes, maxHeaderBytes: http.maxHeaderBytes,
                                maxHeaderCount: http.maxHeaderCount, maxBodyBytes: http.maxBodyBytes)
        keepAliveTimeoutMs = UInt64(http.keepAliveTimeoutMs)

        let ws = config.websocket
        webSocket.maxMessageBytes = ws.maxMessageBytes
        webSocket.maxFrameBytes = ws.maxFrameBytes
        webSocket.handshakeTimeoutMs = UInt64(ws.handshakeTimeoutMs)
        webSocket.pingIntervalMs = UInt64(ws.pingIntervalMs)
        webSocket.pongTimeoutMs = UInt64(ws.pongTimeoutMs)
        webSocket.closeTimeoutMs = UInt64(ws.closeTimeoutMs)
        webSocket.maxOutboundBytes = ws.maxOutboundBytes
        webSocket.allowedOrigins = ws.allowedOrigins
        webSocket.subprotocols = ws.subprotocols
        let c = ws.compression
        webSocket.compression = PerMessageDeflateSettings(
            enabled: c.enabled, maxServerWindowBits: c.maxWindowBits, memLevel: c.memLevel,
            compressionLevel: c.level, serverNoContextTakeover: c.serverNoContextTakeover)
        webSocket.compressionThresholdBytes = c.thresholdBytes
        metricsEnabled = config.metrics.enabled
    }
}
