import Testing
@testable import SwitchboardConfig

/// Errors of meaning: the file is valid TOML but not a valid configuration.
@Suite struct SchemaErrorTests {
    @Test func wrongTypeNamesFileLineKeyAndValue() {
        let error = parseError("# c\n[websocket]\n\nmax_message_bytes = \"big\"\n", fileName: "config/x.toml")
        #expect(error == ConfigError(file: "config/x.toml", line: 4, key: "websocket.max_message_bytes",
                                     message: "expected an integer between 125 and 1073741824, got \"big\""))
        #expect(error?.description == #"config/x.toml:4: websocket.max_message_bytes: expected an integer between 125 and 1073741824, got "big""#)
    }

    @Test(arguments: [
        ("[server]\necho = \"yes\"", "server.echo", "expected true or false, got \"yes\""),
        ("[server]\ntls_cert = 5", "server.tls_cert", "expected a string in double quotes, got 5"),
        ("[server]\nlisten = true", "server.listen", "got true"),
        ("[log]\nlevel = \"verbose\"", "log.level", "expected one of trace, debug, info, notice, warning, error, critical, got \"verbose\""),
        ("[log]\nformat = [\"json\"]", "log.format", "expected one of text, json, got [\"json\"]"),
        ("[websocket]\nsubprotocols = \"chat\"", "websocket.subprotocols", "expected an array of strings"),
        ("[websocket]\nsubprotocols = [\"a b\"]", "websocket.subprotocols", "HTTP token"),
        ("[websocket]\nallowed_origins = [\"\"]", "websocket.allowed_origins", "got \"\""),
        ("[metrics]\nenabled = 1", "metrics.enabled", "expected true or false, got 1"),
        ("[server]\ndemo = true", "server.demo", "expected one of auto, on, off, got true"),
        ("[auth]\nstandalone = \"on\"", "auth.standalone", "expected true, false or \"auto\", got \"on\""),
        ("[server]\ntrusted_proxies = [\"nginx\"]", "server.trusted_proxies", "an IP address or CIDR network"),
        ("[server]\ntrusted_proxies = [\"10.0.0.0/33\"]", "server.trusted_proxies", "got \"10.0.0.0/33\""),
        ("[server]\ntrusted_proxies = [\"fe80::1%eth0\"]", "server.trusted_proxies", "CIDR"),
        ("[server]\ntrusted_proxies = [\"::1/129\"]", "server.trusted_proxies", "CIDR"),
    ])
    func wrongTypes(text: String, key: String, messagePart: String) throws {
        let error = try #require(parseError(text))
        #expect(error.file == "test.toml")
        #expect(error.line == 2)
        #expect(error.key == key)
        #expect(error.message.contains(messagePart), "\(error.message)")
    }

    @Test(arguments: [
        ("server.event_loops", -1, 257), ("server.drain_timeout_ms", -1, 60_001),
        ("websocket.max_message_bytes", 124, 1_073_741_825), ("websocket.pong_timeout_ms", 99, 3_600_001),
        ("websocket.compression.max_window_bits", 8, 16), ("websocket.compression.mem_level", 0, 10),
        ("websocket.compression.level", -1, 10), ("http.max_header_count", 0, 10_001),
        ("gateway.max_pending_commands", 0, 1_000_001), ("gateway.overload_retry_after_ms", 0, 60_001),
        ("gateway.idempotency_memory_keys", -1, 10_000_001),
        ("relationships.invites_per_user_per_day", 0, 100_001), ("relationships.invites_per_node_per_day", 0, 10_000_001),
        ("push.live_activity_tokens_per_device", 0, 1_001),
        ("gateway.max_pending_commands_per_connection", 0, 1_000_001), ("gateway.max_pending_commands_per_user", 0, 1_000_001),
        ("gateway.max_sockets_per_user", 0, 100_001), ("gateway.replay_chunk_events", 0, 100_001),
        ("relationships.friend_requests_per_hour", 0, 100_001), ("relationships.friend_requests_per_pair_per_hour", 1, 1_001),
        ("relationships.hex_code_misses_per_user_per_hour", 0, 100_001),
        ("relationships.hex_code_misses_per_address_per_hour", 0, 1_000_001),
        ("relationships.hex_code_misses_per_node_per_hour", 0, 10_000_001),
        ("relationships.discovery_max_per_address_per_day", 0, 100_000_001),
        ("relationships.discovery_max_per_node_per_day", 0, 1_000_000_001),
        ("auth.registrations_per_address_per_hour", 0, 1_000_001), ("auth.registrations_per_node_per_hour", 0, 10_000_001),
        ("relationships.connect_failures_per_user_per_hour", 0, 100_001),
        ("relationships.connect_failures_per_address_per_hour", 0, 1_000_001),
        ("relationships.connect_failures_per_node_per_hour", 0, 10_000_001),
        ("relationships.invite_redeem_failures_per_user_per_hour", 0, 100_001),
        ("relationships.invite_redeem_failures_per_address_per_hour", 0, 1_000_001),
        ("relationships.invite_redeem_failures_per_node_per_hour", 0, 10_000_001),
        ("relationships.connect_code_regenerations_per_hour", 0, 10_001),
        ("relationships.connect_code_regenerations_per_node_per_hour", 0, 10_000_001),
        ("relationships.connect_code_quarantine_hours", 0, 87_601),
    ])
    func outOfRangeOnBothSides(key: String, below: Int, above: Int) throws {
        let section = String(key[..<key.lastIndex(of: ".")!])
        let leaf = String(key[key.index(after: key.lastIndex(of: ".")!)...])
        for bad in [below, above] {
            let error = try #require(parseError("[\(section)]\n\n\(leaf) = \(bad)\n"))
            #expect(error.line == 3 && error.key == key)
            #expect(error.message == "expected an integer between \(below + 1) and \(above - 1), got \(bad)")
        }
        // The bounds themselves are accepted.
        for good in [below + 1, above - 1] {
            #expect(throws: Never.self) { try SwitchboardConfiguration.parse("[\(section)]\n\(leaf) = \(good)\n", fileName: "x") }
        }
    }

    @Test func unknownKeySuggestsTheClosestKey() throws {
        let error = try #require(parseError("[websocket]\nmax_mesage_bytes = 1000\n"))
        #expect(error.line == 2 && error.key == "websocket.max_mesage_bytes")
        #expect(error.message == "unknown key; did you mean websocket.max_message_bytes?")
    }

    @Test func keyInTheWrongSectionSuggestsTheRightOne() throws {
        let error = try #require(parseError("[server]\nmax_message_bytes = 1000\n"))
        #expect(error.key == "server.max_message_bytes")
        #expect(error.message.hasSuffix("did you mean websocket.max_message_bytes?"))
        let root = try #require(parseError("listen = \"0.0.0.0:1\"\n"))
        #expect(root.line == 1 && root.key == "listen" && root.message.hasSuffix("did you mean server.listen?"))
    }

    @Test func unknownKeyFarFromAnyGetsNoSuggestion() throws {
        let error = try #require(parseError("[log]\nverbosity_setting = 3\n"))
        #expect(error.key == "log.verbosity_setting" && error.message == "unknown key")
    }

    @Test func unknownSectionNamesItsLineAndSuggests() throws {
        let error = try #require(parseError("[server]\necho = true\n\n[websocket.compresion]\nlevel = 1\n"))
        #expect(error.line == 4 && error.key == "websocket.compresion")
        #expect(error.message == "unknown section [websocket.compresion]; did you mean [websocket.compression]?")
        let far = try #require(parseError("[database]\n"))
        #expect(far.line == 1 && far.message == "unknown section [database]")
    }

    @Test func errorsAreReportedInFileOrder() throws {
        // The unknown key on line 2 comes before the unknown section on line 3.
        let error = try #require(parseError("[server]\nbogus = 1\n[bogus]\n"))
        #expect(error.line == 2)
    }

    @Test(arguments: ["localhost", "1.2.3.4:", ":80", "1.2.3.4:65536", "::1:80", "[::1]80", "256.0.0.1:1", "host name:1", "-bad:1"])
    func badHostPortNamesKeyAndLine(value: String) throws {
        let error = try #require(parseError("[server]\necho = false\ntls_listen = \"\(value)\"\n"))
        #expect(error.line == 3 && error.key == "server.tls_listen")
        #expect(error.message.hasPrefix("expected \"host:port\""))
        #expect(error.message.hasSuffix("got \"\(value)\""))
    }

    @Test func tlsListenWithoutCertNamesCertAndTheLineOfTlsListen() throws {
        let error = try #require(parseError("[server]\n# tls\ntls_listen = \"0.0.0.0:7443\"\ntls_key = \"k.pem\"\n"))
        #expect(error.key == "server.tls_cert" && error.line == 3)
        #expect(error.message.contains("required when server.tls_listen is set"))
        let noKey = try #require(parseError("[server]\ntls_listen = \"0.0.0.0:7443\"\ntls_cert = \"c.pem\"\n"))
        #expect(noKey.key == "server.tls_key" && noKey.line == 2)
    }

    @Test func aBackendWebhookURLWithoutSecretNamesTheSecretAndTheLineOfTheURL() throws {
        let approval = try #require(parseError("[gateway]\n# hook\napproval_webhook_url = \"http://b/hook\"\n"))
        #expect(approval.key == "gateway.webhook_secret" && approval.line == 3)
        #expect(approval.message == "required when gateway.approval_webhook_url is set (backend webhooks are signed)")
        let invite = try #require(parseError("[relationships]\ninvite_webhook_url = \"http://b/invites\"\n"))
        #expect(invite.key == "gateway.webhook_secret" && invite.line == 2)
        #expect(invite.message.contains("relationships.invite_webhook_url"))
        #expect(throws: Never.self) {
            try SwitchboardConfiguration.parse("[gateway]\napproval_webhook_url = \"http://b/hook\"\nwebhook_secret = \"whsec_YmFja2VuZHNlY3JldA==\"\n",
                                               fileName: "x")
        }
    }

    @Test func aDefaultAboveItsMaximumNamesTheMaximumsLineWhenOnlyTheMaximumIsSet() throws {
        let error = try #require(parseError("[relationships]\n\nmax_invite_hours = 9\n"))
        #expect(error.key == "relationships.default_invite_hours" && error.line == 3)
        let members = try #require(parseError("[relationships]\nmax_group_members = 2\ndefault_group_members = 3\n"))
        #expect(members.key == "relationships.default_group_members" && members.line == 3)
    }

    @Test func thePresenceWebhookNeedsTheApprovalURL() throws {
        let error = try #require(parseError("[gateway]\npresence_webhook = true\n"))
        #expect(error.key == "gateway.presence_webhook" && error.line == 2)
        #expect(error.message.contains("gateway.approval_webhook_url"))
        let notBool = try #require(parseError("[gateway]\npresence_webhook = \"yes\"\n"))
        #expect(notBool.key == "gateway.presence_webhook" && notBool.line == 2)
    }

    @Test func noListenerAtAll() throws {
        let error = try #require(parseError("[server]\n\nlisten = \"\"\n"))
        #expect(error.key == "server.listen" && error.line == 3)
        #expect(error.message.contains("no listener"))
    }

    @Test func listenersMustDifferExceptOnPortZero() throws {
        let base = "[server]\ntls_cert = \"c\"\ntls_key = \"k\"\n"
        let error = try #require(parseError(base + "listen = \"0.0.0.0:9000\"\ntls_listen = \"0.0.0.0:9000\"\n"))
        #expect(error.key == "server.tls_listen" && error.line == 5)
        #expect(throws: Never.self) {
            try SwitchboardConfiguration.parse(base + "listen = \"127.0.0.1:0\"\ntls_listen = \"127.0.0.1:0\"\n", fileName: "x")
        }
    }

    @Test func frameLimitMayExceedMessageLimit() throws {
        let c = try SwitchboardConfiguration.parse("[websocket]\nmax_message_bytes = 1000\nmax_frame_bytes = 5000\n", fileName: "x")
        #expect(c.websocket.maxFrameBytes > c.websocket.maxMessageBytes)
    }
}
