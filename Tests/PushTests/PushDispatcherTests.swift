import Foundation
import Push
import Testing

@Suite struct PushDispatcherTests {
    let fixture: WebhookFixture

    init() throws { fixture = try WebhookFixture.shared.get() }

    @Test func requestsBeyondMaxInFlightWaitTheirTurn() async throws {
        let dispatcher = try PushDispatcher(maxInFlight: 1)
        defer { dispatcher.shutdown() }
        let configuration = try WebhookConfiguration(url: "http://127.0.0.1:\(fixture.server.port)/ok", secret: WebhookFixture.secret)
        let client = WebhookPushClient(configuration: configuration, dispatcher: dispatcher)
        let ids = (0..<5).map { "queued-\($0)-" + UUID().uuidString }
        let outcomes: [PushOutcome] = await withTaskGroup(of: PushOutcome.self) { group in
            for id in ids { group.addTask { await client.send(body: Array("{}".utf8), messageID: id) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(outcomes.map { outcome -> String? in
            if case .delivered(let id) = outcome { return id }
            return nil
        }) == Set(ids))
        #expect(dispatcher.completedTransfers == 5)
    }

    @Test func completionsRunOnTheDispatcherThread() async throws {
        let dispatcher = try PushDispatcher()
        defer { dispatcher.shutdown() }
        let callerThread = pthread_self()
        let onOtherThread: Bool = await withCheckedContinuation { continuation in
            dispatcher.submit(PushHTTPRequest(url: "http://127.0.0.1:\(fixture.server.port)/nothing")) { _ in
                continuation.resume(returning: pthread_equal(pthread_self(), callerThread) == 0)
            }
        }
        #expect(onOtherThread)
    }

    @Test func shutdownFailsRunningAndLaterTransfers() async throws {
        let dispatcher = try PushDispatcher()
        let started = Date()
        let running: PushTransportResult = await withCheckedContinuation { continuation in
            dispatcher.submit(PushHTTPRequest(url: "http://127.0.0.1:\(fixture.server.port)/slow", body: Array("{}".utf8))) {
                continuation.resume(returning: $0)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { dispatcher.shutdown() }
        }
        guard case .failure(let message) = running else { Issue.record("expected a failure, got \(running)"); return }
        // "dispatcher stopped" rather than the slow endpoint's 204 proves shutdown did not wait for the transfer;
        // no wall-clock bound here, which would only measure how loaded the test machine is.
        #expect(message == "dispatcher stopped")
        _ = started
        let late: PushTransportResult = await withCheckedContinuation { continuation in
            dispatcher.submit(PushHTTPRequest(url: "http://127.0.0.1:1/")) { continuation.resume(returning: $0) }
        }
        guard case .failure("dispatcher stopped") = late else { Issue.record("expected a failure, got \(late)"); return }
    }

    @Test func unsupportedSchemesAndTimeoutsAreFailures() async throws {
        let dispatcher = try PushDispatcher()
        defer { dispatcher.shutdown() }
        let file: PushTransportResult = await withCheckedContinuation { continuation in
            dispatcher.submit(PushHTTPRequest(url: "file:///etc/passwd")) { continuation.resume(returning: $0) }
        }
        guard case .invalidRequest = file else { Issue.record("file:// must not be fetched: \(file)"); return }
        let slow: PushTransportResult = await withCheckedContinuation { continuation in
            dispatcher.submit(PushHTTPRequest(url: "http://127.0.0.1:\(fixture.server.port)/slow", body: Array("{}".utf8),
                                              timeoutMilliseconds: 300)) { continuation.resume(returning: $0) }
        }
        guard case .failure(let message) = slow else { Issue.record("expected a timeout, got \(slow)"); return }
        #expect(message.lowercased().contains("timeout") || message.lowercased().contains("timed out"))
    }
}
