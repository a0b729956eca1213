@testable import GatewayRuntime
@testable import Server
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
}
