/// Every section and key the configuration file may contain, with types and ranges.
///
/// The single source of truth for parsing, for ``SwitchboardConfiguration/validate()`` and for
/// "did you mean" suggestions; `config/switchboard.example.toml` documents the same keys (a test
/// checks that it sets every one of them).
enum ConfigSchema {
    /// Section headers that may appear, in file order.
    static let sections = [
        "server", "http", "websocket", "websocket.compression", "log", "metrics", "auth", "storage", "gateway", "push",
        "relationships", "cluster"
    ]

    static let gibibyte = 1_073_741_824

    /// The keys in file order. Rebuilt per call: the closures capture key paths, which are not
    /// `Sendable`, and a config is parsed once per process.
    static var keys: [ConfigKey] {
        [
            .listen("server.listen", \.server.listen),
            .listen("server.tls_listen", \.server.tlsListen),
            .string("server.tls_cert", \.server.tlsCert),
            .string("server.tls_key", \.server.tlsKey),
            .integer("server.event_loops", \.server.eventLoops, 0...256),
            .boolean("server.echo", \.server.echo),
            .integer("server.drain_timeout_ms", \.server.drainTimeoutMs, 0...60_000),
            .integer("server.max_connections", \.server.maxConnections, 1...10_000_000),
            .strings(
                "server.trusted_proxies", \.server.trustedProxies,
                itemRule: "an IP address or CIDR network such as \"10.0.0.0/8\" or \"fd00::/8\"", isValid: isNetwork),
            .choice("server.demo", \.server.demo),

            .integer("http.max_request_line_bytes", \.http.maxRequestLineBytes, 64...1_048_576),
            .integer("http.max_header_bytes", \.http.maxHeaderBytes, 256...16_777_216),
            .integer("http.max_header_count", \.http.maxHeaderCount, 1...10_000),
            .integer("http.max_body_bytes", \.http.maxBodyBytes, 0...gibibyte),
            .integer("http.keep_alive_timeout_ms", \.http.keepAliveTimeoutMs, 0...3_600_000),
            .corsOrigins("http.cors_allowed_origins", \.http.corsAllowedOrigins),

            .integer("websocket.max_message_bytes", \.websocket.maxMessageBytes, 125...gibibyte),
            .integer("websocket.max_frame_bytes", \.websocket.maxFrameBytes, 125...gibibyte),
            .integer("websocket.handshake_timeout_ms", \.websocket.handshakeTimeoutMs, 100...600_000),
            .integer("websocket.ping_interval_ms", \.websocket.pingIntervalMs, 0...3_600_000),
            .integer("websocket.pong_timeout_ms", \.websocket.pongTimeoutMs, 100...3_600_000),
            .integer("websocket.close_timeout_ms", \.websocket.closeTimeoutMs, 0...600_000),
            .integer("websocket.max_outbound_bytes", \.websocket.maxOutboundBytes, 1024...gibibyte),
            .strings(
                "websocket.allowed_origins", \.websocket.allowedOrigins,
                itemRule: "an exact Origin such as \"https://example.com\" (visible ASCII, no spaces)",
                isValid: isOrigin),
            .strings(
                "websocket.subprotocols", \.websocket.subprotocols,
                itemRule: "an HTTP token (RFC 7230 §3.2.6), e.g. \"chat.v1\"", isValid: isToken),

            .boolean("websocket.compression.enabled", \.websocket.compression.enabled),
            .integer("websocket.compression.threshold_bytes", \.websocket.compression.thresholdBytes, 0...gibibyte),
            .integer("websocket.compression.max_window_bits", \.websocket.compression.maxWindowBits, 9...15),
            .integer("websocket.compression.mem_level", \.websocket.compression.memLevel, 1...9),
            .integer("websocket.compression.level", \.websocket.compression.level, 0...9),
            .boolean(
                "websocket.compression.server_no_context_takeover", \.websocket.compression.serverNoContextTakeover),

            .choice("log.level", \.log.level),
            .choice("log.format", \.log.format),

            .boolean("metrics.enabled", \.metrics.enabled),

            .string("auth.hs256_secret", \.auth.hs256Secret),
            .string("auth.es256_public_key_file", \.auth.es256PublicKeyFile),
            .string("auth.audience", \.auth.audience),
            .string("auth.issuer", \.auth.issuer),
            .integer("auth.leeway_seconds", \.auth.leewaySeconds, 0...3600),
            .integer("auth.timeout_ms", \.auth.timeoutMs, 100...600_000),
            .strings(
                "auth.api_keys", \.auth.apiKeys, itemRule: "at least 16 visible ASCII characters", isValid: isAPIKey),
            .autoSwitch("auth.standalone", \.auth.standalone),
            .integer("auth.registrations_per_address_per_hour", \.auth.registrationsPerAddressPerHour, 1...1_000_000),
            .integer("auth.registrations_per_node_per_hour", \.auth.registrationsPerNodePerHour, 1...10_000_000),

            .string("storage.path", \.storage.path),
            .choice("storage.synchronous", \.storage.synchronous),
            .boolean("storage.gather_wal_writes", \.storage.gatherWalWrites),
            .integer("storage.retention_hours", \.storage.retentionHours, 1...87_600),
            .integer("storage.keep_latest_events", \.storage.keepLatestEvents, 0...10_000_000),

            .integer("gateway.approval_timeout_ms", \.gateway.approvalTimeoutMs, 1_000...3_600_000),
            .integer("gateway.approval_min_timeout_ms", \.gateway.approvalMinTimeoutMs, 100...3_600_000),
            .integer("gateway.approval_max_timeout_ms", \.gateway.approvalMaxTimeoutMs, 1_000...86_400_000),
            .integer("gateway.presence_grace_ms", \.gateway.presenceGraceMs, 0...600_000),
            .integer("gateway.max_message_characters", \.gateway.maxMessageCharacters, 1...100_000),
            .string("gateway.approval_webhook_url", \.gateway.approvalWebhookURL),
            .string("gateway.webhook_secret", \.gateway.webhookSecret),
            .boolean("gateway.presence_webhook", \.gateway.presenceWebhook),
            .integer("gateway.push_ack_delay_ms", \.gateway.pushAckDelayMs, 0...600_000),
            .integer("gateway.approval_push_delay_ms", \.gateway.approvalPushDelayMs, 0...600_000),
            .integer("gateway.max_pending_commands", \.gateway.maxPendingCommands, 1...1_000_000),
            .integer(
                "gateway.max_pending_commands_per_connection", \.gateway.maxPendingCommandsPerConnection, 1...1_000_000),
            .integer("gateway.max_pending_commands_per_user", \.gateway.maxPendingCommandsPerUser, 1...1_000_000),
            .integer("gateway.max_sockets_per_user", \.gateway.maxSocketsPerUser, 1...100_000),
            .integer("gateway.replay_chunk_events", \.gateway.replayChunkEvents, 1...100_000),
            .integer("gateway.overload_retry_after_ms", \.gateway.overloadRetryAfterMs, 1...60_000),
            .integer("gateway.idempotency_memory_keys", \.gateway.idempotencyMemoryKeys, 0...10_000_000),

            .string("push.apns_team_id", \.push.apnsTeamID),
            .string("push.apns_key_id", \.push.apnsKeyID),
            .string("push.apns_key_file", \.push.apnsKeyFile),
            .string("push.apns_bundle_id", \.push.apnsBundleID),
            .string("push.apns_endpoint", \.push.apnsEndpoint),
            .string("push.ca_file", \.push.caFile),
            .string("push.live_activity_attributes_type", \.push.liveActivityAttributesType),
            .string("push.fcm_service_account_file", \.push.fcmServiceAccountFile),
            .string("push.fcm_endpoint", \.push.fcmEndpoint),
            .string("push.fcm_token_uri", \.push.fcmTokenURI),
            .string("push.webhook_url", \.push.webhookURL),
            .string("push.webhook_secret", \.push.webhookSecret),
            .string("push.deep_link_scheme", \.push.deepLinkScheme),
            .integer("push.max_in_flight", \.push.maxInFlight, 1...10_000),
            .integer("push.live_activity_tokens_per_device", \.push.liveActivityTokensPerDevice, 1...1_000),

            .integer("relationships.connect_code_lifetime_hours", \.relationships.connectCodeLifetimeHours, 0...87_600),
            .integer(
                "relationships.connect_code_regenerations_per_hour", \.relationships.connectCodeRegenerationsPerHour,
                1...10_000),
            .integer(
                "relationships.connect_code_regenerations_per_node_per_hour",
                \.relationships.connectCodeRegenerationsPerNodePerHour,
                1...10_000_000),
            .integer(
                "relationships.connect_code_quarantine_hours", \.relationships.connectCodeQuarantineHours, 1...87_600),
            .integer("relationships.default_invite_hours", \.relationships.defaultInviteHours, 1...8_760),
            .integer("relationships.max_invite_hours", \.relationships.maxInviteHours, 1...8_760),
            .integer("relationships.default_group_members", \.relationships.defaultGroupMembers, 2...100_000),
            .integer("relationships.max_group_members", \.relationships.maxGroupMembers, 2...100_000),
            .integer("relationships.discovery_max_per_request", \.relationships.discoveryMaxPerRequest, 1...100_000),
            .integer("relationships.discovery_max_per_day", \.relationships.discoveryMaxPerDay, 1...10_000_000),
            .integer("relationships.invites_per_user_per_day", \.relationships.invitesPerUserPerDay, 1...100_000),
            .integer("relationships.invites_per_node_per_day", \.relationships.invitesPerNodePerDay, 1...10_000_000),
            .integer("relationships.friend_requests_per_hour", \.relationships.friendRequestsPerHour, 1...100_000),
            .integer(
                "relationships.friend_requests_per_pair_per_hour", \.relationships.friendRequestsPerPairPerHour,
                2...1_000),
            .integer(
                "relationships.hex_code_misses_per_user_per_hour", \.relationships.hexCodeMissesPerUserPerHour,
                1...100_000),
            .integer(
                "relationships.hex_code_misses_per_address_per_hour", \.relationships.hexCodeMissesPerAddressPerHour,
                1...1_000_000),
            .integer(
                "relationships.hex_code_misses_per_node_per_hour", \.relationships.hexCodeMissesPerNodePerHour,
                1...10_000_000),
            .integer(
                "relationships.discovery_max_per_address_per_day", \.relationships.discoveryMaxPerAddressPerDay,
                1...100_000_000),
            .integer(
                "relationships.discovery_max_per_node_per_day", \.relationships.discoveryMaxPerNodePerDay,
                1...1_000_000_000),
            .integer(
                "relationships.connect_failures_per_user_per_hour", \.relationships.connectFailuresPerUserPerHour,
                1...100_000),
            .integer(
                "relationships.connect_failures_per_address_per_hour", \.relationships.connectFailuresPerAddressPerHour,
                1...1_000_000),
            .integer(
                "relationships.connect_failures_per_node_per_hour", \.relationships.connectFailuresPerNodePerHour,
                1...10_000_000),
            .integer(
                "relationships.invite_redeem_failures_per_user_per_hour",
                \.relationships.inviteRedeemFailuresPerUserPerHour, 1...100_000),
            .integer(
                "relationships.invite_redeem_failures_per_address_per_hour",
                \.relationships.inviteRedeemFailuresPerAddressPerHour,
                1...1_000_000),
            .integer(
                "relationships.invite_redeem_failures_per_node_per_hour",
                \.relationships.inviteRedeemFailuresPerNodePerHour, 1...10_000_000),
            .string("relationships.invite_webhook_url", \.relationships.inviteWebhookURL),

            .string("cluster.postgres_url", \.cluster.postgresURL),
            .string("cluster.postgres_password_file", \.cluster.postgresPasswordFile),
            .string("cluster.redis_url", \.cluster.redisURL),
            .string("cluster.node_id", \.cluster.nodeID),
            .integer("cluster.connect_timeout_ms", \.cluster.connectTimeoutMs, 1_000...120_000),
            .integer("cluster.statement_timeout_ms", \.cluster.statementTimeoutMs, 0...3_600_000),
            .integer("cluster.presence_refresh_ms", \.cluster.presenceRefreshMs, 100...60_000),
            .integer("cluster.presence_ttl_ms", \.cluster.presenceTtlMs, 200...600_000),
            .integer("cluster.recheck_interval_ms", \.cluster.recheckIntervalMs, 100...60_000)
        ]
    }

    /// RFC 7230 §3.2.6 `token`: the grammar of `Sec-WebSocket-Protocol` values (RFC 6455 §4.1).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// An IPv4 or IPv6 address (no zone), optionally with a CIDR prefix length (/0–32, /0–128).
    static func isNetwork(_ text: String) -> Bool {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let address = parts[0]
        let isV4 = ListenAddress.isIPv4Literal(address)
        guard isV4 || (!address.contains("%") && ListenAddress.isIPv6Literal(address)) else { return false }
        guard parts.count == 2 else { return true }
        guard let bits = Int(parts[1]), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        return (0...(isV4 ? 32 : 128)).contains(bits)
    }

    /// API keys are secrets: short ones are guessable.
    static func isAPIKey(_ text: String) -> Bool {
        text.utf8.count >= 16 && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// An `Origin` header value is ASCII without spaces (RFC 6454 §7.1 serializes it so);
    /// anything else could never match and is a typo.
    static func isOrigin(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
