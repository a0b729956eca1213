import Foundation
@testable import GatewayRuntime
import Glibc
@testable import Server
import Storage
import TestSupport
import Testing

/// `switchboard migrate` and `serve` with `[cluster] postgres_url`, against the real executable and a PostgreSQL
/// database started by the test.
@Suite struct ClusterServeTests {
    static let secret = "cluster-test-secret-0123456789abcdef"

    static func config(_ directory: TemporaryDirectory, name: String, port: UInt16, url: String, extra: String = "") throws -> String {
        let path = directory.path + "/\(name).toml"
        try """
            [server]
            listen = "127.0.0.1:\(port)"
            [auth]
            hs256_secret = "\(secret)"
            api_keys = ["cluster-api-key-0123456789"]
            [cluster]
            postgres_url = "\(url)"
            node_id = "\(name)"
            \(extra)
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(.timeLimit(.minutes(1))) func migrateThenTwoNodesServeOneDatabaseAndSeeEachOthersEvents() throws {
        let directory = try TemporaryDirectory()
        let url = try PostgresCluster.shared().createDatabase()
        let (portA, portB) = (try GatewayProcess.freePort(), try GatewayProcess.freePort())
        let configA = try Self.config(directory, name: "node-a", port: portA, url: url)
        let configB = try Self.config(directory, name: "node-b", port: portB, url: url)

        let dry = try runCommand(GatewayProcess.executable, ["migrate", "--config", configA, "--dry-run"])
        #expect(dry.status == 0 && dry.output.contains("schema version none (new database)") && dry.output.contains("would apply migration(s) 1,"),
                "\(dry.output)")
        let applied = try runCommand(GatewayProcess.executable, ["migrate", "--config", configA])
        #expect(applied.status == 0 && applied.output.contains("schema version is now \(PostgresGatewayStore.latestSchemaVersion)"), "\(applied.output)")
        #expect(try runCommand(GatewayProcess.executable, ["migrate", "--config", configB]).output.contains("nothing to do"))

        // Both nodes start on the one database (no instance lock between them) and leave no SQLite file behind.
        let a = try ServeProcess(["serve", "--config", configA], directory: directory)
        let b = try ServeProcess(["serve", "--config", configB], directory: directory)
        try a.waitUntilServing(port: portA)
        try b.waitUntilServing(port: portB)
        #expect(a.stderr.contains("storage: PostgreSQL") && a.stderr.contains("as node node-a"))
        #expect(a.stderr.contains("cluster.redis_url is not set"), "\(a.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/switchboard.db"))

        // Node A creates ann and appends; node B learns ann when her phone connects there (nodes cache users they
        // have seen) and appends after A's event: one log, no offset used twice.
        let key = "cluster-api-key-0123456789"
        #expect(try GatewayHTTP.request(port: portA, "POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1"], key: key).status == 201)
        let published = try GatewayHTTP.request(port: portA, "POST", "/v1/users/ann/events", ["name": "from-a"], key: key)
        #expect(published.status == 201)
        let token = GatewayTestServer.token(user: "ann", device: "phone", secret: Self.secret)
        let phone = try GatewayTestClient(port: portB, path: "/v1/ws?token=\(token)")
        _ = try phone.next("welcome")
        let fromB = try GatewayHTTP.request(port: portB, "POST", "/v1/users/ann/events", ["name": "from-b"], key: key)
        #expect(fromB.status == 201, "\(String(describing: fromB.json))")
        #expect(GatewayJSON.int(fromB.json, "offset") == (GatewayJSON.int(published.json, "offset") ?? 0) + 1)
        let delivered = try phone.next("custom")
        #expect(GatewayJSON.string(delivered, "data", "name") == "from-b")
    }

    /// A new database, a `redis-server`, and the configurations of nodes A and B on both, each with a free port.
    static func redisNodes(_ directory: TemporaryDirectory) throws -> (RedisServer, (String, UInt16), (String, UInt16)) {
        signal(SIGPIPE, SIG_IGN)
        let url = try PostgresCluster.shared().createDatabase()
        let redis = try RedisServer(ready: ClusterDeliveryTests.Cluster.redisReady)
        let (portA, portB) = (try GatewayProcess.freePort(), try GatewayProcess.freePort())
        let extra = "redis_url = \"unix://\(redis.socketPath)\""
        return (redis, (try config(directory, name: "node-a", port: portA, url: url, extra: extra), portA),
                (try config(directory, name: "node-b", port: portB, url: url, extra: extra), portB))
    }

    @Test(.timeLimit(.minutes(1))) func twoNodesWithRedisDeliverAnEventCommittedOnOneToADeviceOnTheOther() throws {
        let directory = try TemporaryDirectory()
        let (redis, (configA, portA), (configB, portB)) = try Self.redisNodes(directory)
        let key = "cluster-api-key-0123456789"
        let a = try ServeProcess(["serve", "--config", configA], directory: directory)
        try a.waitUntilServing(port: portA)
        #expect(try GatewayHTTP.request(port: portA, "POST", "/v1/users", ["userId": "ann"], key: key).status == 201)
        let b = try ServeProcess(["serve", "--config", configB], directory: directory)
        try b.waitUntilServing(port: portB)
        #expect(b.stderr.contains("cross-node delivery: Redis publish/subscribe at unix(path: \"\(redis.socketPath)\")"), "\(b.stderr)")
        #expect(!b.stderr.contains("redis_url is not set"))
        try ClusterDeliveryTests.waitUntil(timeout: 30, "both nodes subscribed") {
            [portA, portB].allSatisfy { (try? MetricsScrape.fetch(port: $0).value("switchboard_cluster_bus_up")) == 1 }
        }

        let token = GatewayTestServer.token(user: "ann", device: "phone", secret: Self.secret)
        let phone = try GatewayTestClient(port: portB, path: "/v1/ws?token=\(token)")
        _ = try phone.next("welcome")
        for i in 0..<3 {
            #expect(try GatewayHTTP.request(port: portA, "POST", "/v1/users/ann/events", ["name": "from-a-\(i)"], key: key).status == 201)
            let delivered = try phone.next("custom", timeout: 10)
            #expect(GatewayJSON.string(delivered, "data", "name") == "from-a-\(i)")
        }
        #expect(try MetricsScrape.fetch(port: portB).value("switchboard_cluster_notices_total") >= 3)
    }

    /// Presence across nodes with a node killed hard: bob on node B hears ann (on node A) come online once; after A
    /// gets SIGKILL (no disconnect, no notice) he hears her go offline once, within 15 s.
    @Test(.timeLimit(.minutes(1))) func aContactOnAnotherNodeHearsAUserOfAKilledNodeGoOfflineOnceWithinFifteenSeconds() throws {
        let directory = try TemporaryDirectory()
        let (redis, (configA, portA), (configB, portB)) = try Self.redisNodes(directory)
        let key = "cluster-api-key-0123456789"
        let a = try ServeProcess(["serve", "--config", configA], directory: directory)
        try a.waitUntilServing(port: portA)
        for user in ["ann", "bob"] {
            #expect(try GatewayHTTP.request(port: portA, "POST", "/v1/users", ["userId": user], key: key).status == 201)
        }
        #expect(try GatewayHTTP.request(port: portA, "POST", "/v1/contacts", ["userA": "ann", "userB": "bob"], key: key).status == 200)
        let b = try ServeProcess(["serve", "--config", configB], directory: directory)
        try b.waitUntilServing(port: portB)
        try ClusterDeliveryTests.waitUntil(timeout: 30, "both nodes subscribed") {
            [portA, portB].allSatisfy { (try? MetricsScrape.fetch(port: $0).value("switchboard_cluster_bus_up")) == 1 }
        }

        let bob = try GatewayTestClient(port: portB, path: "/v1/ws?token=\(GatewayTestServer.token(user: "bob", device: "phone", secret: Self.secret))")
        _ = try bob.next("welcome")
        let ann = try GatewayTestClient(port: portA, path: "/v1/ws?token=\(GatewayTestServer.token(user: "ann", device: "phone", secret: Self.secret))")
        _ = try ann.next("welcome")
        let annPresence: ([String: Any]) -> Bool = { $0["type"] as? String == "presence" && GatewayJSON.string($0, "data", "userId") == "ann" }
        let online = try bob.next(timeout: 10, where: annPresence)
        #expect(GatewayJSON.string(online, "data", "status") == "online")

        kill(a.pid, SIGKILL)
        let killedAt = Date()
        #expect(a.exitStatus(within: 10) != nil)
        let offline = try bob.next(timeout: 20, where: annPresence)     // the next word about ann: offline, not a repeat
        let elapsed = Date().timeIntervalSince(killedAt)
        #expect(GatewayJSON.string(offline, "data", "status") == "offline")
        #expect(elapsed <= 15, "offline after \(elapsed) s")
        print("presence: offline heard \(Int(elapsed * 1000)) ms after SIGKILL")
        // Nothing more about ann: a marker published after the offline arrives with no presence frame before it.
        #expect(try GatewayHTTP.request(port: portB, "POST", "/v1/users/bob/events", ["name": "marker"], key: key).status == 201)
        let next = try bob.next(timeout: 10) { annPresence($0) || GatewayJSON.string($0, "data", "name") == "marker" }
        #expect(GatewayJSON.string(next, "data", "name") == "marker")
        withExtendedLifetime(redis) {}   // Redis runs until here
    }

    @Test(.timeLimit(.minutes(1))) func anUnreadablePasswordFileStopsServeNamingTheKey() throws {
        let directory = try TemporaryDirectory()
        let url = try PostgresCluster.shared().createDatabase()
        let port = try GatewayProcess.freePort()
        let config = try Self.config(directory, name: "node-a", port: port, url: url,
                                     extra: "postgres_password_file = \"\(directory.path)/missing\"")
        let serve = try ServeProcess(["serve", "--config", config], directory: directory)
        #expect(serve.exitStatus() == 1)
        #expect(serve.stderr.contains("cluster.postgres_password_file: cannot read \(directory.path)/missing"), "\(serve.stderr)")
    }
}
