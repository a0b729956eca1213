@testable import GatewayRuntime
import Logging
@testable import Server
import Testing

/// The approval and invite webhooks go out through libcurl (the Push dispatcher), with three attempts.
@Suite struct WebhookPosterTests {
    @Test func retriesAFailedPostUntilItSucceeds() throws {
        let receiver = try WebhookReceiver(statuses: [503, 500, 200])
        let poster = try #require(WebhookPoster(url: "http://127.0.0.1:\(receiver.port)/hook", label: "test.webhook",
                                                logger: Logger(label: "test"), retryDelayMs: 5))
        poster.post(Array(#"{"n":1}"#.utf8), what: "test")
        #expect(receiver.waitForBodies(3) == [#"{"n":1}"#, #"{"n":1}"#, #"{"n":1}"#])
    }

    @Test func acceptsHTTPAndHTTPSURLsOnly() {
        let logger = Logger(label: "test")
        #expect(WebhookPoster(url: "https://backend.example/hook", label: "t", logger: logger) != nil)
        #expect(WebhookPoster(url: "http://backend:9000", label: "t", logger: logger) != nil)
        for bad in ["ftp://x/hook", "http:///hook", "https://", "backend/hook", ""] {
            #expect(WebhookPoster(url: bad, label: "t", logger: logger) == nil, "\(bad)")
        }
    }
}
