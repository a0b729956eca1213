import Testing
@testable import SwitchboardConfig

/// `[cluster]`: PostgreSQL only when a URL is set, and every mistake named by key and line.
@Suite struct ClusterSectionTests {
    @Test func theDefaultIsTheEmbeddedSQLiteDatabase() {
        let cluster = SwitchboardConfiguration().cluster
        #expect(!cluster.usesPostgres)
        #expect(cluster.connectTimeoutMs == 5_000 && cluster.statementTimeoutMs == 10_000)
        #expect(cluster.presenceRefreshMs == 2_000 && cluster.presenceTtlMs == 6_000)
        #expect(cluster.recheckIntervalMs == 1_000)
    }

    @Test func aClusterSectionParses() throws {
        let text = """
            [auth]
            hs256_secret = "shared-by-every-node"
            [cluster]
            postgres_url = "postgresql://switchboard@db.internal:5432/switchboard"
            postgres_password_file = "/run/secrets/pg"
            redis_url = "redis://redis.internal:6379"
            node_id = "node-a.eu_1"
            connect_timeout_ms = 3_000
            statement_timeout_ms = 0
            presence_refresh_ms = 500
            presence_ttl_ms = 1_000
            recheck_interval_ms = 250
            """
        let c = try SwitchboardConfiguration.parse(text, fileName: "x").cluster
        #expect(c.usesPostgres)
        #expect(c.postgresURL == "postgresql://switchboard@db.internal:5432/switchboard")
        #expect(c.postgresPasswordFile == "/run/secrets/pg" && c.redisURL == "redis://redis.internal:6379")
        #expect(c.nodeID == "node-a.eu_1" && c.connectTimeoutMs == 3_000 && c.statementTimeoutMs == 0)
        #expect(c.presenceRefreshMs == 500 && c.presenceTtlMs == 1_000 && c.recheckIntervalMs == 250)
    }

    @Test(arguments: [
        ("[auth]\nhs256_secret = \"s\"\n[cluster]\npostgres_url = \"mysql://db/x\"\n", "cluster.postgres_url", 4, "postgresql://"),
        ("[cluster]\n\npostgres_password_file = \"/p\"\n", "cluster.postgres_password_file", 3, "without cluster.postgres_url"),
        ("[cluster]\nredis_url = \"http://r\"\n", "cluster.redis_url", 2, "redis://"),
        ("[auth]\nhs256_secret = \"s\"\n[cluster]\npostgres_url = \"postgresql:///db\"\nredis_url = \"rediss://r:6380\"\n",
         "cluster.redis_url", 5, "not supported yet"),
        ("[cluster]\nredis_url = \"redis://r:6379\"\n", "cluster.redis_url", 2, "without cluster.postgres_url"),
        ("[cluster]\nnode_id = \"a b\"\n", "cluster.node_id", 2, "letters, digits"),
        ("[cluster]\nconnect_timeout_ms = 10\n", "cluster.connect_timeout_ms", 2, "between 1000 and 120000"),
        ("[cluster]\nstatement_timeout_ms = -1\n", "cluster.statement_timeout_ms", 2, "between 0 and 3600000"),
        ("[cluster]\npostgres_url = \"postgresql:///db\"\n", "auth.hs256_secret", 2, "every node must verify the same tokens"),
        ("[cluster]\npresence_refresh_ms = 99\n", "cluster.presence_refresh_ms", 2, "between 100 and 60000"),
        ("[cluster]\npresence_ttl_ms = 600_001\n", "cluster.presence_ttl_ms", 2, "between 200 and 600000"),
        ("[cluster]\npresence_refresh_ms = 3_000\n\npresence_ttl_ms = 5_999\n", "cluster.presence_ttl_ms", 4,
         "at least twice cluster.presence_refresh_ms (3000)"),
        ("[cluster]\npresence_refresh_ms = 4_000\n", "cluster.presence_ttl_ms", 2, "at least twice"),   // against the default TTL
        ("[cluster]\n\nrecheck_interval_ms = 99\n", "cluster.recheck_interval_ms", 3, "between 100 and 60000"),
        ("[cluster]\nrecheck_interval_ms = 60_001\n", "cluster.recheck_interval_ms", 2, "between 100 and 60000"),
        ("[cluster]\nrecheck_interval_ms = \"1s\"\n", "cluster.recheck_interval_ms", 2, "integer"),
    ] as [(String, String, Int, String)])
    func mistakesNameTheKeyAndLine(text: String, key: String, line: Int, message: String) {
        let error = parseError(text)
        #expect(error?.key == key)
        #expect(error?.line == line)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }
}
