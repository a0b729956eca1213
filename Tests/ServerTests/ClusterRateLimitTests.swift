import Foundation
import Gateway
@testable import GatewayRuntime
import Logging
import Redis
@testable import Server
import Storage
import Synchronization
import TestSupport
import Testing

/// The guessing limits across nodes: with `redis_url` every node counts failed connect codes and new registrations
/// in one Redis (a sorted set per counter, decided by one script), so guesses spread over the nodes meet one limit;
/// while Redis cannot be reached each node keeps its own limit (real `redis-server`, real PostgreSQL, real sockets).
@Suite struct ClusterRateLimitTests {
    static func limits(_ redis: RedisServer) -> RedisAttemptLimits {
        var logger = Logger(label: "rate-limit-test")
        logger.logLevel = .critical
        return RedisAttemptLimits(endpoint: RedisEndpoint(address: .unix(path: redis.socketPath)), logger: logger, timeoutMs: 500, retryMs: 0)
    }

    /// One decision, waited for.
    static func decide(_ limits: RedisAttemptLimits, _ attempt: AttemptLimiter.Attempt, now: Int64,
                       windowMs: Int64 = 1_000) throws -> AttemptLimiter.Decision? {
        let answer = Mutex<AttemptLimiter.Decision??>(nil)
        let done = DispatchSemaphore(value: 0)
        limits.decide(attempt, windowMs: windowMs, now: now) { decision in
            answer.withLock { $0 = .some(decision) }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else { throw TestFailure("no decision within 10 s") }
        return answer.withLock { $0 }!
    }

    @Test func twoNodesCountersInRedisAreOneSlidingWindowWithTheLongestWait() throws {
        signal(SIGPIPE, SIG_IGN)
        let redis = try RedisServer(ready: ClusterDeliveryTests.Cluster.redisReady)
        let (a, b) = (Self.limits(redis), Self.limits(redis))
        defer { a.stop(); b.stop() }
        let address = AttemptLimiter.Counter(key: "address:a", limit: 3)
        let node = AttemptLimiter.Counter(key: "node", limit: 4)
        // The same script as `AttemptLimiterTests`' first case, the attempts alternating between the two nodes.
        #expect(try Self.decide(a, .count([address]), now: 100) == .allowed)
        #expect(try Self.decide(b, .count([address]), now: 200) == .allowed)
        #expect(try Self.decide(a, .ask([address]), now: 250) == .allowed)   // asking counts nothing
        #expect(try Self.decide(a, .count([address]), now: 300) == .allowed)
        #expect(try Self.decide(b, .count([address]), now: 400) == .refused(key: "address:a", retryAfterMs: 700))
        #expect(try Self.decide(b, .ask([address]), now: 400) == .refused(key: "address:a", retryAfterMs: 700))
        #expect(try Self.decide(a, .count([address]), now: 1_099) == .refused(key: "address:a", retryAfterMs: 1))
        #expect(try Self.decide(b, .count([address, node]), now: 1_100) == .allowed)   // the first left the window
        // A refused attempt counts under no counter; the longest wait among full ones is given.
        #expect(try Self.decide(a, .count([node]), now: 1_200) == .allowed)
        #expect(try Self.decide(b, .count([node]), now: 1_300) == .allowed)
        #expect(try Self.decide(a, .count([node]), now: 1_400) == .allowed)
        #expect(try Self.decide(b, .count([address, node]), now: 1_500) == .refused(key: "node", retryAfterMs: 600))
        // Each counter's set expires one window after its last entry: Redis keeps nothing for idle keys.
        let connection = try RedisConnection(.unix(path: redis.socketPath))
        guard case .integer(let ttl) = try connection.command(["PTTL", "sb:limit:node"]) else { throw TestFailure("no PTTL") }
        #expect(ttl > 0 && ttl <= 1_000)
    }

    @Test func twoNodesCountAWeightedAttemptsEntriesInRedis() throws {
        signal(SIGPIPE, SIG_IGN)
        let redis = try RedisServer(ready: ClusterDeliveryTests.Cluster.redisReady)
        let (a, b) = (Self.limits(redis), Self.limits(redis))
        defer { a.stop(); b.stop() }
        let discover = AttemptLimiter.Counter(key: "discover:alice", limit: 6)
        // `AttemptLimiterTests.aWeightedAttemptNeedsRoomForAllItsEntries`, alternating between the nodes.
        #expect(try Self.decide(a, .count([discover], weight: 4), now: 100) == .allowed)
        #expect(try Self.decide(b, .count([discover], weight: 3), now: 200) == .refused(key: "discover:alice", retryAfterMs: 900))
        #expect(try Self.decide(b, .count([discover], weight: 2), now: 300) == .allowed)
        #expect(try Self.decide(a, .ask([discover]), now: 400) == .refused(key: "discover:alice", retryAfterMs: 700))
        #expect(try Self.decide(b, .count([discover], weight: 7), now: 500) == .refused(key: "discover:alice", retryAfterMs: 1_000))
        #expect(try Self.decide(a, .count([discover], weight: 3), now: 1_150) == .allowed)
        #expect(try Self.decide(b, .count([discover], weight: 2), now: 1_200) == .refused(key: "discover:alice", retryAfterMs: 100))
        let connection = try RedisConnection(.unix(path: redis.socketPath))
        #expect(try connection.command(["ZCARD", "sb:limit:discover:alice"]) == .integer(2))   // one member per attempt, with its weight
        // A member written before weights (no `*`) weighs 1.
        _ = try connection.command(["ZADD", "sb:limit:node", "1200", "older-node:1"])
        #expect(try Self.decide(a, .ask([AttemptLimiter.Counter(key: "node", limit: 1)]), now: 1_300)
                == .refused(key: "node", retryAfterMs: 900))
    }

    @Test func withRedisGoneADecisionIsNilAtOnceAndARestartedRedisForgives() throws {
        signal(SIGPIPE, SIG_IGN)
        var redis = try RedisServer(ready: ClusterDeliveryTests.Cluster.redisReady)
        let limits = Self.limits(redis)
        defer { limits.stop() }
        let node = AttemptLimiter.Counter(key: "node", limit: 1)
        #expect(try Self.decide(limits, .count([node]), now: 100) == .allowed)
        #expect(try Self.decide(limits, .count([node]), now: 200) == .refused(key: "node", retryAfterMs: 900))
        redis.stop(keepingDirectory: true)
        let started = Date()
        #expect(try Self.decide(limits, .count([node]), now: 300) == nil)
        #expect(Date().timeIntervalSince(started) < 5)   // refused connections answer at once (unix socket)
        redis = try RedisServer(reusing: redis.directory, ready: ClusterDeliveryTests.Cluster.redisReady)
        #expect(try Self.decide(limits, .count([node]), now: 400) == .allowed)
        #expect(try Self.decide(limits, .count([node]), now: 500) == .refused(key: "node", retryAfterMs: 900))
    }

    /// Two `GatewayRuntime`s on one PostgreSQL database and one Redis.
    static func nodes(_ cluster: ClusterDeliveryTests.Cluster, _ configure: @escaping (inout GatewaySettings) -> Void) throws
        -> (GatewayTestServer, GatewayTestServer) {
        let socket = cluster.redis.socketPath
        func node() throws -> GatewayTestServer {
            try GatewayTestServer { [url = cluster.url] in
                $0.postgres = PostgresStoreOptions(url: url)
                $0.redisURL = "unix://" + socket
                configure(&$0.settings)
            }
        }
        let a = try node()
        return (a, try node())
    }

    static func wrongCode(_ node: GatewayTestServer) throws -> String {
        let owner = try node.connect(user: "owner", device: "o1")
        let code = try #require(GatewayJSON.string(try owner.command("connect_code"), "result", "code"))
        return code == "000000" ? "000001" : "000000"
    }

    @Test func failedConnectCodesSpreadOverTwoNodesMeetOneLimit() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let (a, b) = try Self.nodes(cluster) { $0.connectFailuresPerNodePerHour = 5 }
        let wrong = try Self.wrongCode(a)
        var errors: [String?] = []
        for (user, node) in [("g1", a), ("g2", b), ("g3", a)] {
            let guesser = try node.connect(user: user, device: "d")
            for _ in 0..<2 { errors.append(GatewayJSON.string(try guesser.command("connect", ["code": wrong]), "error", "code")) }
        }
        #expect(errors == Array(repeating: "connect_code_invalid", count: 5) + ["rate_limited"])
        // Both nodes refuse from now on, before looking at the code, with the wait of the shared counter.
        for node in [a, b] {
            let fresh = try node.connect(user: "g4", device: "d")
            let refused = try fresh.command("connect", ["code": wrong])
            #expect(GatewayJSON.string(refused, "error", "code") == "rate_limited")
            let retry = try #require(GatewayJSON.int(refused, "error", "retryAfterMs"))
            #expect(retry > 3_000_000 && retry <= 3_600_000)
        }
    }

    @Test func registrationsSpreadOverTwoNodesMeetOneLimit() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let (a, b) = try Self.nodes(cluster) { $0.registrationsPerNodePerHour = 2 }
        func register(_ node: GatewayTestServer, _ secret: String) throws -> GatewayHTTP.Response {
            try GatewayHTTP.request(port: node.port, "POST", "/v1/devices/register", ["deviceToken": secret, "platform": "ios"], key: nil)
        }
        #expect(try register(a, "secret-a-0123456789").status == 201)
        #expect(try register(b, "secret-b-0123456789").status == 201)
        let third = try register(a, "secret-c-0123456789")
        #expect(third.status == 429)
        #expect(third.errorCode == "rate_limited")
        #expect(try register(b, "secret-d-0123456789").status == 429)
        #expect(try register(a, "secret-a-0123456789").status == 200)   // a known device still gets its token
    }

    /// Contact discovery's window (entries per user per day) is one window for the cluster: without it a user could
    /// look up as many numbers as there are nodes times the limit.
    @Test func discoverySpreadOverTwoNodesMeetsOneWindow() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let (a, b) = try Self.nodes(cluster) {
            $0.relationships.discoveryMaxEntriesPerWindow = 6
            $0.relationships.discoveryMaxEntriesPerRequest = 5
        }
        let onA = try a.connect(user: "alice", device: "a1")
        let onB = try b.connect(user: "alice", device: "a2")
        func discover(_ client: GatewayTestClient, _ count: Int) throws -> [String: Any] {
            try client.command("discover", ["numbers": (0..<count).map { "+4420794600\($0 + 10)" }])
        }
        #expect(GatewayJSON.array(try discover(onA, 4), "result", "entries")?.count == 4)
        let refused = try discover(onB, 3)   // 4 + 3 > 6: B knows of A's four
        #expect(GatewayJSON.string(refused, "error", "code") == "rate_limited")
        let retry = try #require(GatewayJSON.int(refused, "error", "retryAfterMs"))
        #expect(retry > 86_000_000 && retry <= 86_400_000)
        #expect(GatewayJSON.array(try discover(onB, 2), "result", "entries")?.count == 2)
        #expect(GatewayJSON.string(try discover(onA, 1), "error", "code") == "rate_limited")
        // Another user has a window of its own.
        let bob = try b.connect(user: "bob", device: "b1")
        #expect(GatewayJSON.array(try discover(bob, 5), "result", "entries")?.count == 5)
    }

    @Test func withRedisDownEachNodeKeepsItsOwnLimit() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let (a, b) = try Self.nodes(cluster) { $0.connectFailuresPerNodePerHour = 3 }
        let wrong = try Self.wrongCode(a)
        let guesserA = try a.connect(user: "g1", device: "d")
        let guesserB = try b.connect(user: "g2", device: "d")
        // One failure counted in Redis (and on A), then Redis dies.
        #expect(GatewayJSON.string(try guesserA.command("connect", ["code": wrong]), "error", "code") == "connect_code_invalid")
        cluster.killRedis()
        func guess(_ guesser: GatewayTestClient) throws -> String? {
            GatewayJSON.string(try guesser.command("connect", ["code": wrong]), "error", "code")
        }
        // A counts on alone: its third failure is its last; B has its own three.
        #expect(try [guess(guesserA), guess(guesserA), guess(guesserA)] == ["connect_code_invalid", "connect_code_invalid", "rate_limited"])
        #expect(try [guess(guesserB), guess(guesserB), guess(guesserB), guess(guesserB)]
                == ["connect_code_invalid", "connect_code_invalid", "connect_code_invalid", "rate_limited"])
    }
}
