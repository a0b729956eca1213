import Foundation
import SwitchboardClient
import Testing

/// Pure tests of the reconnect rules: a scripted transport and an injected clock and random source, no sockets.
@Suite struct BackoffTests {
    /// Records every sleep the client asks for instead of sleeping.
    final class RecordingClock: ClientClock, @unchecked Sendable {
        // @unchecked: `sleeps` is guarded by `lock`.
        private let lock = NSLock()
        private var recorded: [Double] = []
        var sleeps: [Double] { lock.withLock { recorded } }
        func nowMilliseconds() -> Int64 { 0 }
        func sleep(seconds: Double) async throws {
            lock.withLock { recorded.append(seconds) }
            await Task.yield()
        }
    }

    /// A transport whose every connection attempt ends as the script says.
    final class ScriptedTransport: WebSocketTransport, @unchecked Sendable {
        // @unchecked: immutable after init.
        let outcome: TransportError
        init(_ outcome: TransportError) { self.outcome = outcome }
        func connect(to url: WebSocketURL) async throws { throw outcome }
        func send(text: String) async throws { throw outcome }
        func receive() async throws -> String { throw outcome }
        func close(code: UInt16) async {}
    }

    /// Runs a client whose attempts end as `outcomes` say (the last one repeats) until it has slept `count` times
    /// or stopped; returns the sleeps and the stop reason.
    func run(_ outcomes: [TransportError], random: Double, sleeps count: Int,
             policy: ReconnectPolicy = ReconnectPolicy()) async -> (sleeps: [Double], stopped: ClientError?, tokens: [SwitchboardClient.TokenRequest]) {
        let clock = RecordingClock()
        let attempt = Counter()
        let tokens = Recorder<SwitchboardClient.TokenRequest>()
        var configuration = SwitchboardClient.Configuration(url: "ws://127.0.0.1:1/v1/ws") { request in
            tokens.append(request)
            return "token"
        }
        configuration.clock = clock
        configuration.random = { random }
        configuration.reconnect = policy
        configuration.transport = {
            let n = attempt.next()
            return ScriptedTransport(outcomes[min(n, outcomes.count - 1)])
        }
        let client = SwitchboardClient(configuration)
        await client.connect()
        var stopped: ClientError?
        for await event in client.events {
            if case .connection(.stopped(let reason)) = event { stopped = reason; break }
            if clock.sleeps.count >= count { break }
        }
        await client.disconnect()
        return (Array(clock.sleeps.prefix(count)), stopped, tokens.all)
    }

    @Test func networkFailuresBackOffExponentiallyWithFullJitterUpToTheCap() async {
        // random → 1 gives the full window: 0.5, 1, 2, 4 … capped at 30 s.
        let full = await run([.connectFailed("refused")], random: 0.999_999, sleeps: 9)
        let expected = [0.5, 1, 2, 4, 8, 16, 30, 30, 30].map { $0 * 0.999_999 }
        #expect(zip(full.sleeps, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "\(full.sleeps)")
        #expect(full.sleeps.count == 9)
        // Full jitter: the delay is the window scaled by the random number.
        let quarter = await run([.connectFailed("refused")], random: 0.25, sleeps: 3)
        #expect(quarter.sleeps == [0.125, 0.25, 0.5])
    }

    @Test func closeCodesFollowTheProtocolTable() {
        #expect(ReconnectPolicy.action(for: .closed(code: 1013)) == .soon)
        #expect(ReconnectPolicy.action(for: .closed(code: 1001)) == .backoff)
        #expect(ReconnectPolicy.action(for: .closed(code: 1011)) == .backoff)
        #expect(ReconnectPolicy.action(for: .closed(code: nil)) == .backoff)
        #expect(ReconnectPolicy.action(for: .closed(code: 4001)) == .refreshToken)
        #expect(ReconnectPolicy.action(for: .closed(code: 4003)) == .refreshToken)
        #expect(ReconnectPolicy.action(for: .upgradeRejected(status: 401)) == .refreshToken)
        #expect(ReconnectPolicy.action(for: .upgradeRejected(status: 503)) == .backoff)
        for code: UInt16 in [1002, 1003, 1007, 1008, 1009, 4000, 4400] {
            #expect(ReconnectPolicy.action(for: .closed(code: code)) == .stop, "close \(code)")
        }
        #expect(ReconnectPolicy.action(for: .upgradeRejected(status: 403)) == .stop)
    }

    @Test func slowConsumerCloseReconnectsSoonWithoutGrowingTheBackoff() async {
        let result = await run([.closed(code: 1013)], random: 0.999_999, sleeps: 3)
        #expect(result.sleeps == [0.1, 0.1, 0.1])
    }

    @Test func rejectedTokensAreRefreshedThenTheClientStops() async {
        let result = await run([.upgradeRejected(status: 401)], random: 0.5, sleeps: 10)
        // First refresh at once, then with backoff; after maxTokenRefreshes (3) rejections in a row it stops.
        #expect(result.sleeps == [0, 0.25, 0.5])
        #expect(result.tokens == [.initial, .rejected, .rejected, .rejected])
        guard case .authenticationFailed? = result.stopped else {
            Issue.record("expected authenticationFailed, got \(String(describing: result.stopped))")
            return
        }
    }

    @Test func policyRefusalsStopAndSurface() async {
        let result = await run([.closed(code: 1008)], random: 0.5, sleeps: 5)
        #expect(result.sleeps.isEmpty)
        #expect(result.stopped == .refused(.closed(code: 1008)))
    }

    @Test func urlsAreParsedAndQueriesEncoded() throws {
        let url = try #require(WebSocketURL("wss://gw.example.com/v1/ws"))
        #expect(url.isSecure && url.port == 443 && url.hostHeader == "gw.example.com")
        #expect(url.appendingQuery([("token", "a.b+c/="), ("offset", "41")]).target == "/v1/ws?token=a.b%2Bc%2F%3D&offset=41")
        let local = try #require(WebSocketURL("ws://[::1]:7420"))
        #expect(local.host == "::1" && local.port == 7420 && local.target == "/" && local.hostHeader == "[::1]:7420")
        #expect(WebSocketURL("http://example.com") == nil)
    }
}

/// A thread-safe counter for closures the client calls from its actor.
final class Counter: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { defer { value += 1 }; return value } }
}

/// A thread-safe list for closures the client calls from its actor.
final class Recorder<T>: @unchecked Sendable {
    // @unchecked: `items` is guarded by `lock`.
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
}
