import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// The push outbox's metrics: latency by provider (with the 5 s bucket the apps' measure reads), dead letters and
/// the outbox depth, on a real SQLite file with a scripted provider.
@Suite struct PushMetricsTests {
    static func scrape(_ f: OutboxFixture) -> MetricsScrape { MetricsScrape(text: f.runtime.metricsText()) }

    @Test func aDeliveredPushIsTimedUnderItsProviderAndTheOutboxEmpties() throws {
        let transport = ScriptedTransport(["alert": [.retry(afterMs: nil, reason: "500")]])
        let f = try OutboxFixture()
        try f.start(transport)
        f.offlineDeviceWithTokens([("apns", "alert")])
        f.requestApproval()
        // The latency is observed before the job's "sent" row is written.
        #expect(f.eventually { f.job(1)?.state == "sent" })
        let metrics = Self.scrape(f)
        #expect(try metrics.value(#"switchboard_push_delivery_seconds_count{provider="apns"}"#) == 1)
        #expect(try metrics.value(#"switchboard_push_delivery_seconds_bucket{provider="apns",le="5"}"#) == 1)
        #expect(try metrics.value(#"switchboard_push_delivery_seconds_sum{provider="apns"}"#) < 5)
        #expect(try metrics.value(#"switchboard_push_delivery_seconds_count{provider="fcm"}"#) == 0)
        #expect(try metrics.value("switchboard_push_outbox_depth") == 0)
        #expect(try metrics.value("switchboard_push_dead_letters_total") == 0)
    }

    @Test func aRejectedPushIsADeadLetterAndIsNotTimed() throws {
        let transport = ScriptedTransport(["alert": [.rejected(reason: "400 BadPayload")]])
        let f = try OutboxFixture()
        try f.start(transport)
        f.offlineDeviceWithTokens([("apns", "alert")])
        f.requestApproval()
        #expect(f.eventually { (Self.scrape(f).samples["switchboard_push_dead_letters_total"] ?? 0) == 1 })
        #expect(f.job(1)?.state == "dead")
        #expect(try Self.scrape(f).value(#"switchboard_push_delivery_seconds_count{provider="apns"}"#) == 0)
    }

    @Test func unsentJobsAreTheOutboxDepth() throws {
        let f = try OutboxFixture()
        try f.start(nil)                                  // no transport: jobs stay in the outbox
        f.offlineDeviceWithTokens([("fcm", "f1")])
        f.requestApproval()
        f.requestApproval()
        #expect(f.eventually { f.job(2)?.state == "pending" })
        #expect(try Self.scrape(f).value("switchboard_push_outbox_depth") == 2)
    }
}

/// The providers' HTTP request latency, through the real APNs adapter against the fake APNs (HTTP/2, TLS).
@Suite struct PushRequestMetricsTests {
    @Test func everyProviderRequestIsTimedAndTheDeliveryCountsUnderItsProvider() throws {
        let g = try PushEndToEndGateway()
        let token = PushEndToEndProviders.apnsToken("a500")   // answered 500 once, then 200
        try PushEndToEndDeliveryTests.annOffline(g, token: token)
        _ = try g.requestApproval(session: "s1")
        #expect(g.eventually { g.job(1)?.state == "sent" })
        let requests = MetricsScrape(text: try #require(g.transport).metricsText())
        #expect(try requests.value("switchboard_push_request_seconds_count") == 2)   // the 500 and the 200
        #expect(try requests.value("switchboard_push_request_seconds_bucket{le=\"10\"}") == 2)
        let outbox = MetricsScrape(text: g.server.runtime.metricsText())
        #expect(try outbox.value(#"switchboard_push_delivery_seconds_count{provider="apns"}"#) == 1)
        #expect(try outbox.value(#"switchboard_push_attempts_total{provider="apns",outcome="retry"}"#) == 1)
    }
}
