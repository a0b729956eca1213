@testable import GatewayRuntime
@testable import Server
import Gateway
import SwitchboardConfig
import Testing

/// The configuration keys of the domain's tunables reach the hub's settings.
@Suite struct ConfigurationOptionsTests {
    @Test func idempotencyMemoryAndClusterPresenceTimingComeFromTheFile() throws {
        let config = try SwitchboardConfiguration.parse("""
            [auth]
            hs256_secret = "shared-by-every-node"
            [gateway]
            idempotency_memory_keys = 100
            [cluster]
            postgres_url = "postgresql:///switchboard"
            presence_refresh_ms = 1_000
            presence_ttl_ms = 4_000
            recheck_interval_ms = 300
            """, fileName: "x")
        let settings = GatewayRuntime.Options(config).settings
        #expect(settings.idempotencyMemoryKeys == 100)
        #expect(settings.clusterPresenceRefreshMs == 1_000 && settings.clusterPresenceTtlMs == 4_000)
        #expect(settings.clusterRecheckIntervalMs == 300)
        let defaults = GatewayRuntime.Options(SwitchboardConfiguration()).settings
        #expect(defaults.idempotencyMemoryKeys == 4_096)
        #expect(defaults.clusterPresenceRefreshMs == 2_000 && defaults.clusterPresenceTtlMs == 6_000)
        #expect(defaults.clusterRecheckIntervalMs == 1_000)
    }

    @Test func theAcknowledgementDelaysComeFromTheFileAndApprovalsInheritIt() throws {
        let inherited = GatewayRuntime.Options(try SwitchboardConfiguration.parse("[gateway]\npush_ack_delay_ms = 2_500\n", fileName: "x")).settings
        #expect(inherited.pushAckDelayMs == 2_500 && inherited.approvalPushDelayMs == 2_500)
        let own = GatewayRuntime.Options(try SwitchboardConfiguration.parse("""
            [gateway]
            push_ack_delay_ms = 2_500
            approval_push_delay_ms = 9_000
            """, fileName: "x")).settings
        #expect(own.pushAckDelayMs == 2_500 && own.approvalPushDelayMs == 9_000)
        let defaults = GatewayRuntime.Options(SwitchboardConfiguration()).settings
        #expect(defaults.pushAckDelayMs == 5_000 && defaults.approvalPushDelayMs == 5_000)
    }

    @Test func inviteAndLiveActivityLimitsComeFromTheFile() throws {
        let config = try SwitchboardConfiguration.parse("""
            [push]
            live_activity_tokens_per_device = 4
            [relationships]
            invites_per_user_per_day = 7
            invites_per_node_per_day = 70
            """, fileName: "x")
        let settings = GatewayRuntime.Options(config).settings
        #expect(settings.liveActivityTokensPerDevice == 4)
        #expect(settings.relationships.invitesPerUserPerDay == 7 && settings.relationships.invitesPerNodePerDay == 70)
        let defaults = GatewayRuntime.Options(SwitchboardConfiguration()).settings
        #expect(defaults.liveActivityTokensPerDevice == 16)
        #expect(defaults.relationships.invitesPerUserPerDay == 30 && defaults.relationships.invitesPerNodePerDay == 2_000)
    }

    @Test func registrationAndGuessingLimitsComeFromTheFile() throws {
        let config = try SwitchboardConfiguration.parse("""
            [auth]
            registrations_per_address_per_hour = 11
            registrations_per_node_per_hour = 12
            [relationships]
            connect_failures_per_user_per_hour = 21
            connect_failures_per_address_per_hour = 22
            connect_failures_per_node_per_hour = 23
            invite_redeem_failures_per_user_per_hour = 31
            invite_redeem_failures_per_address_per_hour = 32
            invite_redeem_failures_per_node_per_hour = 33
            """, fileName: "x")
        let s = GatewayRuntime.Options(config).settings
        #expect(s.registrationsPerAddressPerHour == 11 && s.registrationsPerNodePerHour == 12)
        #expect(s.connectFailuresPerUserPerHour == 21 && s.connectFailuresPerAddressPerHour == 22 && s.connectFailuresPerNodePerHour == 23)
        #expect(s.relationships.inviteRedeemFailuresPerUserPerHour == 31 && s.relationships.inviteRedeemFailuresPerAddressPerHour == 32
                && s.relationships.inviteRedeemFailuresPerNodePerHour == 33)
        let d = GatewayRuntime.Options(SwitchboardConfiguration()).settings
        #expect(d.registrationsPerAddressPerHour == 120 && d.registrationsPerNodePerHour == 600)
        #expect(d.connectFailuresPerUserPerHour == 20 && d.connectFailuresPerAddressPerHour == 60 && d.connectFailuresPerNodePerHour == 600)
        #expect(d.relationships.inviteRedeemFailuresPerUserPerHour == 20 && d.relationships.inviteRedeemFailuresPerAddressPerHour == 60
                && d.relationships.inviteRedeemFailuresPerNodePerHour == 600)
    }

    @Test func commandSharesSocketCapAndReplayPartsComeFromTheFile() throws {
        let config = try SwitchboardConfiguration.parse("""
            [gateway]
            max_pending_commands_per_connection = 3
            max_pending_commands_per_user = 9
            max_sockets_per_user = 4
            replay_chunk_events = 10
            """, fileName: "x")
        let options = GatewayRuntime.Options(config)
        #expect(options.maxPendingCommandsPerConnection == 3 && options.maxPendingCommandsPerUser == 9)
        #expect(options.maxSocketsPerUser == 4 && options.settings.replayChunkEvents == 10)
        let defaults = GatewayRuntime.Options(SwitchboardConfiguration())
        #expect(defaults.maxPendingCommandsPerConnection == 256 && defaults.maxPendingCommandsPerUser == 512)
        #expect(defaults.maxSocketsPerUser == 32 && defaults.settings.replayChunkEvents == 64)
    }

    @Test func identityLimitsAndStandaloneModeComeFromTheFile() throws {
        let config = try SwitchboardConfiguration.parse("""
            [auth]
            api_keys = ["backend-key-0123456789"]
            [relationships]
            discovery_max_per_address_per_day = 300
            discovery_max_per_node_per_day = 9000
            connect_code_regenerations_per_hour = 4
            connect_code_regenerations_per_node_per_hour = 40
            connect_code_quarantine_hours = 2
            """, fileName: "x")
        let options = GatewayRuntime.Options(config)
        let r = options.settings.relationships
        #expect(r.discoveryMaxEntriesPerAddressPerWindow == 300 && r.discoveryMaxEntriesPerNodePerWindow == 9000)
        #expect(r.connectCodeRegenerationsPerUserPerHour == 4 && r.connectCodeRegenerationsPerNodePerHour == 40)
        #expect(r.connectCodeQuarantineMs == 7_200_000)
        #expect(!options.standalone)   // "auto" with API keys
        let defaults = GatewayRuntime.Options(SwitchboardConfiguration())
        #expect(defaults.standalone)   // "auto" without
        #expect(defaults.settings.relationships == RelationshipSettings())
    }
}
