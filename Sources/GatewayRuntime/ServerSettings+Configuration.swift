import Glibc
import HTTP1
import Server
import Storage
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
        trustedProxies = server.trustedProxies
        // Property observers do not run inside an initializer, so the parsed form is set here too.
        trustedNetworks = TrustedProxies(trustedProxies)

        let http = config.http
        httpLimits = HTTPLimits(
            maxRequestLineBytes: http.maxRequestLineBytes, maxHeaderBytes: http.maxHeaderBytes,
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
        // The gateway's own subprotocol is always offered (browsers pass their token next to it).
        webSocket.subprotocols =
            ws.subprotocols.contains(GatewayEndpoint.subprotocol)
            ? ws.subprotocols : ws.subprotocols + [GatewayEndpoint.subprotocol]
        let c = ws.compression
        webSocket.compression = PerMessageDeflateSettings(
            enabled: c.enabled, maxServerWindowBits: c.maxWindowBits, memLevel: c.memLevel,
            compressionLevel: c.level, serverNoContextTakeover: c.serverNoContextTakeover)
        webSocket.compressionThresholdBytes = c.thresholdBytes
        metricsEnabled = config.metrics.enabled
    }
}

extension GatewayRuntime.Options {
    /// The gateway options for a validated configuration.
    public init(_ config: SwitchboardConfiguration) {
        self.init(databasePath: config.storage.path)
        synchronousFull = config.storage.synchronous == .full
        gatherWalWrites = config.storage.gatherWalWrites
        let auth = config.auth
        hs256Secret = auth.hs256Secret.isEmpty ? nil : auth.hs256Secret
        es256PublicKeyFile = auth.es256PublicKeyFile.isEmpty ? nil : auth.es256PublicKeyFile
        audience = auth.audience.isEmpty ? nil : auth.audience
        issuer = auth.issuer.isEmpty ? nil : auth.issuer
        leewaySeconds = Int64(auth.leewaySeconds)
        authTimeoutMs = UInt64(auth.timeoutMs)
        apiKeys = auth.apiKeys
        standalone = config.standaloneEnabled
        demo = config.demoEnabled
        corsAllowedOrigins = config.http.corsAllowedOrigins
        settings.registrationsPerAddressPerHour = auth.registrationsPerAddressPerHour
        settings.registrationsPerNodePerHour = auth.registrationsPerNodePerHour
        let g = config.gateway
        settings.approvalDefaultTimeoutMs = Int64(g.approvalTimeoutMs)
        settings.approvalMinTimeoutMs = Int64(g.approvalMinTimeoutMs)
        settings.approvalMaxTimeoutMs = Int64(g.approvalMaxTimeoutMs)
        settings.presenceGraceMs = Int64(g.presenceGraceMs)
        settings.maxMessageCharacters = g.maxMessageCharacters
        settings.pushAckDelayMs = Int64(g.pushAckDelayMs)
        settings.approvalPushDelayMs = Int64(g.approvalPushDelayMs)
        approvalWebhookURL = g.approvalWebhookURL.isEmpty ? nil : g.approvalWebhookURL
        webhookSecret = g.webhookSecret.isEmpty ? nil : g.webhookSecret
        presenceWebhook = g.presenceWebhook
        settings.backendWebhooks.deepLinkScheme = config.push.deepLinkScheme
        maxPendingCommands = g.maxPendingCommands
        maxPendingCommandsPerConnection = g.maxPendingCommandsPerConnection
        maxPendingCommandsPerUser = g.maxPendingCommandsPerUser
        maxSocketsPerUser = g.maxSocketsPerUser
        settings.replayChunkEvents = g.replayChunkEvents
        overloadRetryAfterMs = g.overloadRetryAfterMs
        settings.idempotencyMemoryKeys = g.idempotencyMemoryKeys
        let r = config.relationships
        settings.relationships.connectCodeLifetimeMs =
            r.connectCodeLifetimeHours == 0 ? nil : Int64(r.connectCodeLifetimeHours) * 3_600_000
        settings.relationships.connectCodeRegenerationsPerUserPerHour = r.connectCodeRegenerationsPerHour
        settings.relationships.connectCodeRegenerationsPerNodePerHour = r.connectCodeRegenerationsPerNodePerHour
        settings.relationships.connectCodeQuarantineMs = Int64(r.connectCodeQuarantineHours) * 3_600_000
        settings.relationships.defaultInviteHours = r.defaultInviteHours
        settings.relationships.maxInviteHours = r.maxInviteHours
        settings.relationships.defaultGroupMembers = r.defaultGroupMembers
        settings.relationships.maxGroupMembers = r.maxGroupMembers
        settings.relationships.discoveryMaxEntriesPerRequest = r.discoveryMaxPerRequest
        settings.relationships.discoveryMaxEntriesPerWindow = r.discoveryMaxPerDay
        settings.relationships.invitesPerUserPerDay = r.invitesPerUserPerDay
        settings.relationships.invitesPerNodePerDay = r.invitesPerNodePerDay
        settings.liveActivityTokensPerDevice = config.push.liveActivityTokensPerDevice
        settings.relationships.friendRequestsPerHour = r.friendRequestsPerHour
        settings.relationships.friendRequestsPerPairPerHour = r.friendRequestsPerPairPerHour
        settings.relationships.hexCodeMissesPerUserPerHour = r.hexCodeMissesPerUserPerHour
        settings.relationships.hexCodeMissesPerAddressPerHour = r.hexCodeMissesPerAddressPerHour
        settings.relationships.hexCodeMissesPerNodePerHour = r.hexCodeMissesPerNodePerHour
        settings.relationships.discoveryMaxEntriesPerAddressPerWindow = r.discoveryMaxPerAddressPerDay
        settings.relationships.discoveryMaxEntriesPerNodePerWindow = r.discoveryMaxPerNodePerDay
        settings.connectFailuresPerUserPerHour = r.connectFailuresPerUserPerHour
        settings.connectFailuresPerAddressPerHour = r.connectFailuresPerAddressPerHour
        settings.connectFailuresPerNodePerHour = r.connectFailuresPerNodePerHour
        settings.relationships.inviteRedeemFailuresPerUserPerHour = r.inviteRedeemFailuresPerUserPerHour
        settings.relationships.inviteRedeemFailuresPerAddressPerHour = r.inviteRedeemFailuresPerAddressPerHour
        settings.relationships.inviteRedeemFailuresPerNodePerHour = r.inviteRedeemFailuresPerNodePerHour
        inviteWebhookURL = r.inviteWebhookURL.isEmpty ? nil : r.inviteWebhookURL
        retentionHours = config.storage.retentionHours
        keepLatestEvents = config.storage.keepLatestEvents
        let c = config.cluster
        if c.usesPostgres {
            var store = PostgresStoreOptions(url: c.postgresURL)
            store.connectTimeoutSeconds = max(2, (c.connectTimeoutMs + 999) / 1000)
            store.statementTimeoutMs = c.statementTimeoutMs
            store.applicationName = "switchboard " + Self.nodeID(c)
            postgres = store
            redisURL = c.redisURL.isEmpty ? nil : c.redisURL
            nodeId = Self.nodeID(c)
            settings.clusterPresenceRefreshMs = Int64(c.presenceRefreshMs)
            settings.clusterPresenceTtlMs = Int64(c.presenceTtlMs)
            settings.clusterRecheckIntervalMs = Int64(c.recheckIntervalMs)
            // Other nodes' approvals (a dead node's among them) time out here too, within this of their deadline.
            settings.approvalSweepIntervalMs = Self.clusterApprovalSweepMs
        }
    }

    /// How often a node of a cluster sweeps the store for approvals past their deadline.
    public static let clusterApprovalSweepMs: Int64 = 500

    /// `cluster.node_id`, or the host name when empty.
    public static func nodeID(_ cluster: ClusterSection) -> String {
        if !cluster.nodeID.isEmpty { return cluster.nodeID }
        var name = [CChar](repeating: 0, count: 256)
        return gethostname(&name, name.count) == 0 ? String(nulTerminated: name) : "node"
    }

    /// Reads the PostgreSQL password from `cluster.postgres_password_file` (first line), else from the environment
    /// variable `SWITCHBOARD_POSTGRES_PASSWORD`; nil leaves it to the URL or libpq (`PGPASSWORD`, `~/.pgpass`).
    /// Throws a configuration error naming the key when the file cannot be read.
    public mutating func loadPostgresPassword(_ cluster: ClusterSection, environmentPassword: String?) throws {
        guard postgres != nil else { return }
        if !cluster.postgresPasswordFile.isEmpty {
            guard let file = fopen(cluster.postgresPasswordFile, "r") else {
                throw ServerError.configuration(
                    "cluster.postgres_password_file: cannot read \(cluster.postgresPasswordFile): \(String(cString: strerror(errno)))"
                )
            }
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 4096)
            let text = fgets(&line, Int32(line.count), file) == nil ? "" : String(nulTerminated: line)
            let password = String(text.prefix { $0 != "\n" && $0 != "\r" })
            guard !password.isEmpty else {
                throw ServerError.configuration(
                    "cluster.postgres_password_file: \(cluster.postgresPasswordFile) is empty")
            }
            postgres?.password = password
        } else if let password = environmentPassword, !password.isEmpty {
            postgres?.password = password
        }
    }
}

extension ProviderPushTransport.Settings {
    /// The push provider settings for a validated configuration.
    public init(_ config: SwitchboardConfiguration) {
        self.init()
        let p = config.push
        apnsTeamID = p.apnsTeamID
        apnsKeyID = p.apnsKeyID
        apnsKeyFile = p.apnsKeyFile
        apnsBundleID = p.apnsBundleID
        apnsEndpoint = p.apnsEndpoint
        caFile = p.caFile
        liveActivityAttributesType = p.liveActivityAttributesType
        fcmServiceAccountFile = p.fcmServiceAccountFile
        fcmEndpoint = p.fcmEndpoint
        fcmTokenURI = p.fcmTokenURI
        webhookURL = p.webhookURL
        webhookSecret = p.webhookSecret
        deepLinkScheme = p.deepLinkScheme
        maxInFlight = p.maxInFlight
    }
}
