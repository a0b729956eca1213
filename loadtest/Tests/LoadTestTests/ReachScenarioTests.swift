import EventLoop
import Foundation
import Testing
import TestSupport
@testable import switchboard_load

/// The `reach` scenario: its push receiver over a real socket, and whole runs against the real `switchboard`
/// executable whose webhook provider posts to that receiver.
@Suite struct ReachScenarioTests {
    @Test func theSinkRecordsEachWebhookPushWithItsIdsAndAnswers200() throws {
        let port = try freeLoopbackPort()
        let (sink, server) = try ReachPushSink.start(host: "127.0.0.1", port: port)
        defer { server.shutdown() }
        let api = APIClient(
            address: try SocketAddress.resolve(host: "127.0.0.1", port: port),
            hostHeader: "127.0.0.1:\(port)", apiKey: "unused", timeoutSeconds: 5)
        let message = try api.send(
            "POST", "/",
            json: """
                {"target":"r1-phone","kind":"alert","type":"message","title":"New message","ids":{"from":"s1","messageId":"42"}}
                """)
        #expect(message.status == 200)
        let custom = try api.send(
            "POST", "/", json: #"{"target":"r2-phone","kind":"alert","type":"custom","collapseId":"c-7"}"#)
        #expect(custom.status == 200)
        #expect(try api.send("POST", "/", json: "not json").status == 200)
        let pushes = sink.take()
        #expect(pushes.map(\.target) == ["r1-phone", "r2-phone"])
        #expect(pushes.map(\.type) == ["message", "custom"])
        #expect(pushes.map(\.key) == ["42", "c-7"], "a message is matched by its id, anything else by its collapse id")
        #expect(sink.unreadableCount == 1)
        #expect(sink.take().isEmpty, "each push is handed over once")
    }

    @Test(.timeLimit(.minutes(1))) func activePhonesAcknowledgeEveryMessageAndAreNeverPushed() throws {
        let stats = try Self.run(connections: 12, suspended: 0, background: 0)
        #expect(stats.errors.isEmpty, "\(stats.errors)")
        #expect(stats.counts["reach_active_events", default: 0] > 0)
        #expect(stats.counts["reach_active_reached"] == stats.counts["reach_active_events"])
        #expect(stats.latencies["reach_push_active"] == nil, "an acknowledged message is never pushed")
    }

    @Test(.timeLimit(.minutes(1))) func suspendedAndBackgroundedPhonesArePushedEveryMessage() throws {
        let stats = try Self.run(connections: 12, suspended: 1.0 / 3, background: 1.0 / 3)
        #expect(stats.errors.isEmpty, "\(stats.errors)")
        for kind in ["active", "suspended", "background"] {
            #expect(stats.counts["reach_\(kind)_events", default: 0] > 0, "\(kind) phones got messages")
            #expect(stats.counts["reach_\(kind)_reached"] == stats.counts["reach_\(kind)_events"], "\(kind)")
        }
        // A suspended phone is pushed once the 300 ms delay passed without its ack, not before (the histogram's
        // buckets are ≈ 0.1 % wide, hence 299 ms).
        let suspended = try #require(stats.latencies["reach_push_suspended"])
        #expect(
            suspended.histogram.min >= 299_000, "pushed before the acknowledgement delay: \(suspended.histogram.min) µs"
        )
        let background = try #require(stats.latencies["reach_push_background"])
        #expect(background.count > 0)
    }

    /// Runs `reach` for about a second at 40 messages/s against a gateway whose webhook pushes reach the scenario's
    /// receiver, with an acknowledgement delay of 300 ms.
    static func run(connections: Int, suspended: Double, background: Double) throws -> LoadStats {
        let sinkPort = try freeLoopbackPort()
        let (sink, sinkServer) = try ReachPushSink.start(host: "127.0.0.1", port: sinkPort)
        defer { sinkServer.shutdown() }
        let gateway = try GatewayExecutable(
            extraSections: """
                [gateway]
                push_ack_delay_ms = 300
                [push]
                webhook_url = "http://127.0.0.1:\(sinkPort)/"
                webhook_secret = "whsec_MDEyMzQ1Njc4OWFiY2RlZg=="
                """)
        defer { gateway.stop() }
        let environment = try GatewayEnvironment(
            options: GatewayOptions.parse([
                "--jwt-secret", GatewayExecutable.secret, "--api-key", GatewayExecutable.apiKey
            ]),
            common: CommonOptions.parse(["--url", gateway.url]))
        let options = ReachWorkload.Options(
            messageRate: 40, suspendedFraction: suspended, backgroundFraction: background, ackDelayMs: 300, sink: sink)
        let scenario = GatewayScenario(
            name: "reach", components: [GatewayComponent(kind: .reach(options), connections: connections)],
            environment: environment, parameters: [:])
        try scenario.prepare()
        let settings = try ClientSettings(
            target: TargetURL(parsing: gateway.url), sourceAddresses: [], insecure: false, caFile: nil, deflate: false,
            maxMessageBytes: 1 << 20, closeTimeoutMs: 500)
        let load = InProcessLoad(
            scenario: scenario, settings: settings, connections: connections, connectsPerSecond: 2000, loops: 1,
            holdSeconds: 1, drainTimeoutSeconds: 20, firstConnectionIndex: 0, seed: 1)
        try load.start()
        // Bounded by the drain timeout above: the run ends once every message reached its phone, or then.
        let deadline = MonotonicClock.nanoseconds() + 40_000_000_000
        while !load.isFinished && MonotonicClock.nanoseconds() < deadline {
            MonotonicClock.sleep(nanoseconds: 10_000_000)
        }
        #expect(load.isFinished, "the run must stop by itself")
        return try load.finish()
    }
}
