import Redis
import Testing

/// `cluster.redis_url` as the cluster bus reads it.
@Suite struct RedisEndpointTests {
    @Test(arguments: [
        ("redis://redis.internal", RedisEndpoint(address: .tcp(host: "redis.internal", port: 6379))),
        ("redis://10.0.0.5:6380/2", RedisEndpoint(address: .tcp(host: "10.0.0.5", port: 6380))),
        ("redis://:s3cret@r:7000", RedisEndpoint(address: .tcp(host: "r", port: 7000), password: "s3cret")),
        ("redis://app:pw@r", RedisEndpoint(address: .tcp(host: "r", port: 6379), user: "app", password: "pw")),
        ("redis://[::1]:6379", RedisEndpoint(address: .tcp(host: "::1", port: 6379))),
        ("unix:///run/redis/redis.sock", RedisEndpoint(address: .unix(path: "/run/redis/redis.sock"))),
    ] as [(String, RedisEndpoint)])
    func urlsParse(url: String, expected: RedisEndpoint) throws {
        #expect(try RedisEndpoint.parse(url).get() == expected)
    }

    @Test(arguments: [
        ("rediss://r:6380", "not supported yet"),
        ("redis://:pw@r:99999", "port number"),
        ("redis://:pw@", "expected a host"),
        ("unix://relative.sock", "absolute"),
        ("http://r", "redis://"),
    ] as [(String, String)])
    func badURLsAreRefusedWithoutRepeatingThePassword(url: String, message: String) {
        guard case .failure(let error) = RedisEndpoint.parse(url) else { Issue.record("\(url) parsed"); return }
        #expect(error.message.contains(message), "\(error)")
        #expect(!error.message.contains("pw"))
    }
}
