import Testing
@testable import SwitchboardConfig

@Suite struct ParsingTests {
    /// Every key set to a value other than its default.
    static let everyKey = """
        # leading comment
        [server]
        listen = "[::1]:8080"            # IPv6
        tls_listen = "0.0.0.0:8443"
        tls_cert = "/etc/sb/cert.pem"
        tls_key = "/etc/sb/key.pem"
        event_loops = 4
        echo = true
        drain_timeout_ms = 0
        max_connections = 1_000
        trusted_proxies = ["127.0.0.1", "10.0.0.0/8", "fd00::/8"]
        demo = "off"

        [http]
        max_request_line_bytes = 4096
        max_header_bytes = 32_768
        max_header_count = 50
        max_body_bytes = 0
        keep_alive_timeout_ms = 0
        cors_allowed_origins = ["https://app.example", "*"]

        [websocket]
        max_message_bytes = 1_048_576
        max_frame_bytes = 125
        handshake_timeout_ms = 2500
        ping_interval_ms = 0
        pong_timeout_ms = 100
        close_timeout_ms = 600_000
        max_outbound_bytes = 1024
        allowed_origins = ["https://a.example", "null"]
        subprotocols = ["chat.v2", "chat.v1"]

        [websocket.compression]
        enabled = false
        threshold_bytes = 0
        max_window_bits = 9
        mem_level = 1
        level = 9
        server_no_context_takeover = true

        [log]
        level = "critical"
        format = "json"

        [metrics]
        enabled = false

        [auth]
        hs256_secret = "0123456789abcdef0123456789abcdef"
        es256_public_key_file = "/etc/sb/backend.pub.pem"
        audience = "switchboard"
        issuer = "https://backend.example"
        leeway_seconds = 5
        timeout_ms = 2000
        api_keys = ["sk_live_0123456789abcdef"]
        standalone = false
        registrations_per_address_per_hour = 13
        registrations_per_node_per_hour = 130

        [storage]
        path = "/var/lib/switchboard/db.sqlite"
        synchronous = "full"
        gather_wal_writes = false
        retention_hours = 24
        keep_latest_events = 10

        [gateway]
        approval_timeout_ms = 30_000
        approval_min_timeout_ms = 500
        approval_max_timeout_ms = 120_000
        presence_grace_ms = 0
        max_message_characters = 280
        approval_webhook_url = "http://127.0.0.1:9000/hook"
        webhook_secret = "whsec_YmFja2VuZHNlY3JldA=="
        presence_webhook = true
        push_ack_delay_ms = 3000
        approval_push_delay_ms = 2000
        max_pending_commands = 500
        max_pending_commands_per_connection = 5
        max_pending_commands_per_user = 50
        max_sockets_per_user = 7
        replay_chunk_events = 16
        overload_retry_after_ms = 250
        idempotency_memory_keys = 0

        [push]
        apns_team_id = "TEAM123456"
        apns_key_id = "KEY1234567"
        apns_key_file = "/etc/sb/AuthKey.p8"
        apns_bundle_id = "com.example.app"
        apns_endpoint = "https://127.0.0.1:8443"
        ca_file = "/etc/sb/ca.pem"
        live_activity_attributes_type = "AgentActivity"
        fcm_service_account_file = "/etc/sb/fcm.json"
        fcm_endpoint = "http://127.0.0.1:9001/send"
        fcm_token_uri = "http://127.0.0.1:9001/token"
        webhook_url = "https://app.example/push"
        webhook_secret = "whsec_c2VjcmV0"
        deep_link_scheme = "agentapp"
        max_in_flight = 8
        live_activity_tokens_per_device = 3

        [relationships]
        connect_code_lifetime_hours = 24
        default_invite_hours = 72
        max_invite_hours = 96
        default_group_members = 2
        max_group_members = 12
        discovery_max_per_request = 50
        discovery_max_per_day = 100
        invites_per_user_per_day = 5
        invites_per_node_per_day = 50
        friend_requests_per_hour = 12
        friend_requests_per_pair_per_hour = 4
        hex_code_misses_per_user_per_hour = 7
        hex_code_misses_per_address_per_hour = 21
        hex_code_misses_per_node_per_hour = 210
        connect_code_regenerations_per_hour = 4
        connect_code_regenerations_per_node_per_hour = 40
        connect_code_quarantine_hours = 720
        discovery_max_per_address_per_day = 300
        discovery_max_per_node_per_day = 9000
        connect_failures_per_user_per_hour = 3
        connect_failures_per_address_per_hour = 30
        connect_failures_per_node_per_hour = 300
        invite_redeem_failures_per_user_per_hour = 5
        invite_redeem_failures_per_address_per_hour = 50
        invite_redeem_failures_per_node_per_hour = 500
        invite_webhook_url = "http://127.0.0.1:9000/invites"

        [cluster]
        postgres_url = "postgresql://sb@db.internal/sb"
        postgres_password_file = "/run/secrets/pg"
        redis_url = "redis://redis.internal:6379"
        node_id = "node-1"
        connect_timeout_ms = 2_000
        statement_timeout_ms = 500
        presence_refresh_ms = 1_000
        presence_ttl_ms = 3_000
        recheck_interval_ms = 700
        """

    @Test func everyKeyIsParsedIntoItsField() throws {
        let c = try SwitchboardConfiguration.parse(Self.everyKey, fileName: "all.toml")
        #expect(c.server.listen == ListenAddress(host: "::1", port: 8080))
        #expect(c.server.tlsListen == ListenAddress(host: "0.0.0.0", port: 8443))
        #expect(c.server.tlsCert == "/etc/sb/cert.pem")
        #expect(c.server.tlsKey == "/etc/sb/key.pem")
        #expect(c.server.eventLoops == 4)
        #expect(c.server.echo == true)
        #expect(c.server.drainTimeoutMs == 0)
        #expect(c.server.maxConnections == 1000)
        #expect(c.server.trustedProxies == ["127.0.0.1", "10.0.0.0/8", "fd00::/8"])
        #expect(c.server.demo == .off)
        #expect(c.http.maxRequestLineBytes == 4096)
        #expect(c.http.maxHeaderBytes == 32768)
        #expect(c.http.maxHeaderCount == 50)
        #expect(c.http.maxBodyBytes == 0)
        #expect(c.http.keepAliveTimeoutMs == 0)
        #expect(c.http.corsAllowedOrigins == .list(["https://app.example", "*"]))
        #expect(c.websocket.maxMessageBytes == 1_048_576)
        #expect(c.websocket.maxFrameBytes == 125)
        #expect(c.websocket.handshakeTimeoutMs == 2500)
        #expect(c.websocket.pingIntervalMs == 0)
        #expect(c.websocket.pongTimeoutMs == 100)
        #expect(c.websocket.closeTimeoutMs == 600_000)
        #expect(c.websocket.maxOutboundBytes == 1024)
        #expect(c.websocket.allowedOrigins == ["https://a.example", "null"])
        #expect(c.websocket.subprotocols == ["chat.v2", "chat.v1"])
        #expect(c.websocket.compression.enabled == false)
        #expect(c.websocket.compression.thresholdBytes == 0)
        #expect(c.websocket.compression.maxWindowBits == 9)
        #expect(c.websocket.compression.memLevel == 1)
        #expect(c.websocket.compression.level == 9)
        #expect(c.websocket.compression.serverNoContextTakeover == true)
        #expect(c.log.level == .critical)
        #expect(c.log.format == .json)
        #expect(c.metrics.enabled == false)
        #expect(c.auth.hs256Secret == "0123456789abcdef0123456789abcdef")
        #expect(c.auth.es256PublicKeyFile == "/etc/sb/backend.pub.pem")
        #expect(c.auth.audience == "switchboard")
        #expect(c.auth.issuer == "https://backend.example")
        #expect(c.auth.leewaySeconds == 5)
        #expect(c.auth.timeoutMs == 2000)
        #expect(c.auth.apiKeys == ["sk_live_0123456789abcdef"])
        #expect(c.auth.standalone == .off)
        #expect(c.storage.path == "/var/lib/switchboard/db.sqlite")
        #expect(c.storage.synchronous == .full)
        #expect(c.storage.gatherWalWrites == false)
        #expect(c.storage.retentionHours == 24)
        #expect(c.storage.keepLatestEvents == 10)
        #expect(c.gateway.approvalTimeoutMs == 30_000)
        #expect(c.gateway.approvalMinTimeoutMs == 500)
        #expect(c.gateway.approvalMaxTimeoutMs == 120_000)
        #expect(c.gateway.presenceGraceMs == 0)
        #expect(c.gateway.maxMessageCharacters == 280)
        #expect(c.gateway.approvalWebhookURL == "http://127.0.0.1:9000/hook")
        #expect(c.gateway.webhookSecret == "whsec_YmFja2VuZHNlY3JldA==")
        #expect(c.gateway.presenceWebhook == true)
        #expect(c.gateway.pushAckDelayMs == 3000)
        #expect(c.gateway.approvalPushDelayMs == 2000)
        #expect(c.gateway.maxPendingCommands == 500)
        #expect(c.gateway.maxPendingCommandsPerConnection == 5)
        #expect(c.gateway.maxPendingCommandsPerUser == 50)
        #expect(c.gateway.maxSocketsPerUser == 7)
        #expect(c.gateway.replayChunkEvents == 16)
        #expect(c.gateway.overloadRetryAfterMs == 250)
        #expect(c.gateway.idempotencyMemoryKeys == 0)
        #expect(c.push.apnsTeamID == "TEAM123456")
        #expect(c.push.apnsKeyID == "KEY1234567")
        #expect(c.push.apnsKeyFile == "/etc/sb/AuthKey.p8")
        #expect(c.push.apnsBundleID == "com.example.app")
        #expect(c.push.apnsEndpoint == "https://127.0.0.1:8443")
        #expect(c.push.caFile == "/etc/sb/ca.pem")
        #expect(c.push.liveActivityAttributesType == "AgentActivity")
        #expect(c.push.fcmServiceAccountFile == "/etc/sb/fcm.json")
        #expect(c.push.fcmEndpoint == "http://127.0.0.1:9001/send")
        #expect(c.push.fcmTokenURI == "http://127.0.0.1:9001/token")
        #expect(c.push.webhookURL == "https://app.example/push")
        #expect(c.push.webhookSecret == "whsec_c2VjcmV0")
        #expect(c.push.deepLinkScheme == "agentapp")
        #expect(c.push.maxInFlight == 8)
        #expect(c.push.liveActivityTokensPerDevice == 3)
        #expect(c.relationships.connectCodeLifetimeHours == 24)
        #expect(c.relationships.defaultInviteHours == 72)
        #expect(c.relationships.maxInviteHours == 96)
        #expect(c.relationships.defaultGroupMembers == 2)
        #expect(c.relationships.maxGroupMembers == 12)
        #expect(c.relationships.discoveryMaxPerRequest == 50)
        #expect(c.relationships.discoveryMaxPerDay == 100)
        #expect(c.relationships.invitesPerUserPerDay == 5 && c.relationships.invitesPerNodePerDay == 50)
        #expect(c.relationships.friendRequestsPerHour == 12)
        #expect(c.relationships.friendRequestsPerPairPerHour == 4)
        #expect(c.relationships.hexCodeMissesPerUserPerHour == 7)
        #expect(c.relationships.hexCodeMissesPerAddressPerHour == 21)
        #expect(c.relationships.hexCodeMissesPerNodePerHour == 210)
        #expect(c.relationships.connectCodeRegenerationsPerHour == 4)
        #expect(c.relationships.connectCodeRegenerationsPerNodePerHour == 40)
        #expect(c.relationships.connectCodeQuarantineHours == 720)
        #expect(c.relationships.discoveryMaxPerAddressPerDay == 300)
        #expect(c.relationships.discoveryMaxPerNodePerDay == 9000)
        #expect(c.relationships.inviteWebhookURL == "http://127.0.0.1:9000/invites")
        #expect(c.auth.registrationsPerAddressPerHour == 13 && c.auth.registrationsPerNodePerHour == 130)
        #expect(
            c.relationships.connectFailuresPerUserPerHour == 3 && c.relationships.connectFailuresPerAddressPerHour == 30
                && c.relationships.connectFailuresPerNodePerHour == 300)
        #expect(
            c.relationships.inviteRedeemFailuresPerUserPerHour == 5
                && c.relationships.inviteRedeemFailuresPerAddressPerHour == 50
                && c.relationships.inviteRedeemFailuresPerNodePerHour == 500)
        #expect(c.cluster.postgresURL == "postgresql://sb@db.internal/sb")
        #expect(c.cluster.postgresPasswordFile == "/run/secrets/pg")
        #expect(c.cluster.redisURL == "redis://redis.internal:6379")
        #expect(c.cluster.nodeID == "node-1")
        #expect(c.cluster.connectTimeoutMs == 2_000)
        #expect(c.cluster.statementTimeoutMs == 500)
        #expect(c.cluster.presenceRefreshMs == 1_000 && c.cluster.presenceTtlMs == 3_000)
        #expect(c.cluster.recheckIntervalMs == 700)
        #expect(c.explicitlySetKeys == Set(SwitchboardConfiguration.knownKeys))
    }

    @Test func approvalsTakeTheAcknowledgementDelayUnlessTheFileGivesTheirOwn() throws {
        let inherited = try SwitchboardConfiguration.parse("[gateway]\npush_ack_delay_ms = 1_500\n", fileName: "x")
        #expect(inherited.gateway.pushAckDelayMs == 1_500)
        #expect(inherited.gateway.approvalPushDelayMs == 1_500)
        let own = try SwitchboardConfiguration.parse(
            "[gateway]\npush_ack_delay_ms = 1_500\napproval_push_delay_ms = 0\n", fileName: "x")
        #expect(own.gateway.approvalPushDelayMs == 0)
        let neither = try SwitchboardConfiguration.parse("[gateway]\n", fileName: "x")
        #expect(neither.gateway.pushAckDelayMs == 5_000 && neither.gateway.approvalPushDelayMs == 5_000)
        // Same behaviour, same value: the inherited delay equals one written out.
        #expect(
            inherited
                == (try SwitchboardConfiguration.parse(
                    "[gateway]\npush_ack_delay_ms = 1_500\napproval_push_delay_ms = 1_500\n", fileName: "x")))
    }

    @Test func anAcknowledgementDelayOutOfRangeNamesTheKeyAndLine() {
        #expect(
            throws: ConfigError(
                file: "x", line: 3, key: "gateway.push_ack_delay_ms",
                message: "expected an integer between 0 and 600000, got 600001")
        ) {
            try SwitchboardConfiguration.parse(
                "[gateway]\npresence_grace_ms = 1\npush_ack_delay_ms = 600_001\n", fileName: "x")
        }
    }

    @Test func onlyKeysInTheFileAreExplicit() throws {
        let c = try SwitchboardConfiguration.parse("[websocket]\nmax_frame_bytes = 65536\n", fileName: "x")
        #expect(c.explicitlySetKeys == ["websocket.max_frame_bytes"])
        #expect(c == SwitchboardConfiguration())
    }

    @Test func commentsBlankLinesAndWhitespace() throws {
        let text =
            "\u{FEFF}# BOM first\n\n\t[ server ]   # header comment\n\n   echo\t=\ttrue#no space\n"
            + "listen = \"localhost:1\" # \"quoted\" # twice\n\n[ websocket . compression ]\nlevel=0\n"
        let c = try SwitchboardConfiguration.parse(text, fileName: "x")
        #expect(c.server.echo == true)
        #expect(c.server.listen == ListenAddress(host: "localhost", port: 1))
        #expect(c.websocket.compression.level == 0)
    }

    @Test func crlfLineEndingsCountLinesLikeLF() throws {
        let text = "[server]\r\necho = true\r\n\r\nevent_loops = 999\r\n"
        #expect(parseError(text)?.line == 4)
        let ok = try SwitchboardConfiguration.parse("[server]\r\necho = true\r\n", fileName: "x")
        #expect(ok.server.echo)
    }

    @Test(arguments: [
        (#""a\"b""#, "a\"b"), (#""back\\slash""#, "back\\slash"), (#""l1\nl2""#, "l1\nl2"),
        (#""t\tt""#, "t\tt"), (#""\r\b\f""#, "\r\u{8}\u{C}"), (#""\u00e9\u20AC""#, "é€"),
        (#""\U0001F600""#, "😀"), (#""raw é 😀 tab\t""#, "raw é 😀 tab\t"), (#""""#, ""),
        ("\"lit\ttab\"", "lit\ttab")
    ])
    func stringEscapes(literal: String, expected: String) throws {
        let c = try SwitchboardConfiguration.parse("[server]\ntls_cert = \(literal)\n", fileName: "x")
        #expect(c.server.tlsCert == expected)
    }

    @Test(arguments: [("0", 0), ("+256", 256), ("1_0", 10), ("2_5_6", 256), ("00", nil), ("-0", 0)] as [(String, Int?)])
    func integerForms(literal: String, expected: Int?) {
        let result = try? SwitchboardConfiguration.parse("[server]\nevent_loops = \(literal)\n", fileName: "x")
        #expect(result?.server.eventLoops == expected)
    }

    @Test func arraysMaySpanLinesWithCommentsAndTrailingComma() throws {
        let text = """
            [websocket]
            subprotocols = [   # preferred first
                "v2",
                # "v1.5", commented out
                "v1",
            ]
            allowed_origins = [ ]
            max_frame_bytes = 200
            """
        let c = try SwitchboardConfiguration.parse(text, fileName: "x")
        #expect(c.websocket.subprotocols == ["v2", "v1"])
        #expect(c.websocket.allowedOrigins == [])
        #expect(c.websocket.maxFrameBytes == 200)
    }

    @Test func websocketSectionMayFollowItsSubsection() throws {
        let c = try SwitchboardConfiguration.parse(
            "[websocket.compression]\nlevel = 1\n[websocket]\nmax_frame_bytes = 300\n", fileName: "x")
        #expect(c.websocket.compression.level == 1 && c.websocket.maxFrameBytes == 300)
    }

    @Test func everyLogLevelName() throws {
        for level in LogLevelName.allCases {
            let c = try SwitchboardConfiguration.parse("[log]\nlevel = \"\(level.rawValue)\"", fileName: "x")
            #expect(c.log.level == level)
        }
    }

    @Test func emptyListenDisablesTheListener() throws {
        let text = "[server]\nlisten = \"\"\ntls_listen = \"[::]:0\"\ntls_cert = \"c\"\ntls_key = \"k\"\n"
        let c = try SwitchboardConfiguration.parse(text, fileName: "x")
        #expect(c.server.listen == nil)
        #expect(c.server.tlsListen == ListenAddress(host: "::", port: 0))
    }
}

@Suite struct GatewayRuleTests {
    @Test func approvalTimeoutMustLieWithinItsBounds() {
        #expect(
            throws: ConfigError(
                file: "g.toml", line: 2, key: "gateway.approval_timeout_ms",
                message: "must lie between gateway.approval_min_timeout_ms and approval_max_timeout_ms (1000...600000)")
        ) {
            try SwitchboardConfiguration.parse("[gateway]\napproval_timeout_ms = 700_000\n", fileName: "g.toml")
        }
        #expect(throws: ConfigError.self) {
            try SwitchboardConfiguration.parse(
                "[gateway]\napproval_min_timeout_ms = 5000\napproval_max_timeout_ms = 2000\napproval_timeout_ms = 3000\n",
                fileName: "g.toml")
        }
    }

    @Test func shortAPIKeysAreRefusedWithTheRule() throws {
        do {
            _ = try SwitchboardConfiguration.parse("[auth]\napi_keys = [\"short\"]\n", fileName: "a.toml")
            Issue.record("a 5-character API key was accepted")
        } catch {
            #expect(error.key == "auth.api_keys")
            #expect(error.line == 2)
            #expect(error.message.contains("at least 16"))
        }
    }
}
