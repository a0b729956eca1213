import Auth
import Dispatch
import Foundation
import Gateway
@testable import GatewayRuntime
import Logging
@testable import Server
import Synchronization
import Testing

/// A push provider stand-in: records every attempt and answers from a script keyed by token.
final class ScriptedTransport: PushTransport, @unchecked Sendable {
    // @unchecked: all state behind the mutex.
    struct Attempt: Equatable {
        var token: String; var kind: String; var type: String; var deliveryID = ""
        static func == (a: Attempt, b: Attempt) -> Bool { (a.token, a.kind, a.type) == (b.token, b.kind, b.type) }
    }
    private let state = Mutex<(attempts: [Attempt], script: [String: [PushDeliveryOutcome]])>(([], [:]))

    init(_ script: [String: [PushDeliveryOutcome]]) { state.withLock { $0.script = script } }

    var attempts: [Attempt] { state.withLock { $0.attempts } }

    func send(_ notice: PushNotice, to target: PushTarget, deliveryID: String, completion: @escaping @Sendable (PushDeliveryOutcome) -> Void) {
        let outcome = state.withLock { s -> PushDeliveryOutcome in
            s.attempts.append(Attempt(token: target.token, kind: target.kind, type: notice.type, deliveryID: deliveryID))
            guard var queue = s.script[target.token], !queue.isEmpty else { return .delivered }
            let next = queue.removeFirst()
            s.script[target.token] = queue
            return next
        }
        DispatchQueue.global().async { completion(outcome) }
    }
}

/// A gateway runtime on a real SQLite file with a scripted push transport; the hub is driven directly.
final class OutboxFixture {
    let directory: String
    var runtime: GatewayRuntime!

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sb-outbox-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func start(_ transport: PushTransport?) throws {
        var options = GatewayRuntime.Options(databasePath: directory + "/gw.db")
        options.hs256Secret = "0123456789abcdef0123456789abcdef"
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        runtime = try GatewayRuntime(options: options, pushTransport: transport, pushRetryDelay: { attempt, _ in attempt < 5 ? 20 : nil },
                                     logger: logger)
    }

    /// Runs `body` on the hub thread and waits for it.
    func onHub(_ body: @escaping @Sendable (GatewayHub) -> Void) {
        let done = DispatchSemaphore(value: 0)
        let hub = runtime.hub
        runtime.hubLoop.execute { body(hub); done.signal() }
        done.wait()
    }

    /// An offline iOS device of u1 with the given tokens, and a session s1.
    func offlineDeviceWithTokens(_ tokens: [(kind: String, token: String)]) {
        let client = SilentClient()
        onHub { hub in
            hub.connect(client, resumeAfter: nil)
            for (i, t) in tokens.enumerated() {
                let json = #"{"id":"\#(i)","type":"push_register","kind":"\#(t.kind)","token":"\#(t.token)","sessionId":"s1"}"#
                hub.handle(Array(json.utf8), from: client)
            }
            hub.createSession(id: "s1", userId: "u1", title: nil) { _ in }
        }
        Thread.sleep(forTimeInterval: 0.1)   // the writes above commit
        onHub { hub in hub.disconnect(client) }
    }

    func requestApproval() {
        onHub { hub in
            hub.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: nil, idempotencyKey: nil) { _ in }
        }
    }

    func job(_ id: Int64) -> PushJobRecord? { try? runtime.store.pushJob(id: id) }

    /// Polls until `condition` holds (3 s at most).
    func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<300 {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }

    deinit {
        runtime?.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

final class SilentClient: GatewayClient, @unchecked Sendable {
    let userId = "u1", deviceId = "phone", clientType = "ios"
    func send(_ frame: [UInt8]) {}
    func close(code: UInt16, reason: String) {}
}

@Suite(.serialized) struct PushOutboxTests {
    @Test func anInvalidLiveActivityTokenFallsBackToAnAlertInTheSameDelivery() throws {
        let transport = ScriptedTransport(["la": [.invalidToken(reason: "410 Unregistered")]])
        let f = try OutboxFixture()
        try f.start(transport)
        f.offlineDeviceWithTokens([("apns", "alert"), ("liveActivityUpdate", "la")])
        f.requestApproval()
        #expect(f.eventually { f.job(1)?.state == "sent" })
        #expect(transport.attempts == [.init(token: "la", kind: "liveActivityUpdate", type: "approval_request"),
                                       .init(token: "alert", kind: "alert", type: "approval_request")])
        // The dead token is forgotten: the next request goes straight to the alert.
        f.requestApproval()
        #expect(f.eventually { f.job(2)?.state == "sent" })
        #expect(transport.attempts.last == .init(token: "alert", kind: "alert", type: "approval_request"))
        #expect(transport.attempts.count == 3)
    }

    @Test func serverErrorsAreRetriedWithBackoffThenSucceed() throws {
        let transport = ScriptedTransport(["alert": [.retry(afterMs: nil, reason: "500"), .retry(afterMs: 30, reason: "429")]])
        let f = try OutboxFixture()
        try f.start(transport)
        f.offlineDeviceWithTokens([("apns", "alert")])
        f.requestApproval()
        #expect(f.eventually { f.job(1)?.state == "sent" })
        #expect(f.job(1)?.attempts == 3)
        #expect(transport.attempts.count == 3)
    }

    @Test func theDeliveryIdIsStableAcrossRetriesOfAJobAndUniquePerJob() throws {
        // The alert for a request and the push that clears it (approval_timeout) share a collapse id; they are two
        // jobs and must not share a delivery id, or a de-duplicating webhook receiver drops the clearing one.
        let transport = ScriptedTransport(["alert": [.retry(afterMs: nil, reason: "500"), .retry(afterMs: 30, reason: "429")]])
        let f = try OutboxFixture()
        try f.start(transport)
        f.offlineDeviceWithTokens([("apns", "alert")])
        f.onHub { hub in
            hub.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: 1_000, idempotencyKey: nil) { _ in }
        }
        #expect(f.eventually { f.job(1)?.state == "sent" && f.job(2)?.state == "sent" })
        let attempts = transport.attempts
        let request = attempts.filter { $0.type == "approval_request" }.map(\.deliveryID)
        let timeout = attempts.filter { $0.type == "approval_timeout" }.map(\.deliveryID)
        #expect(request.count == 3)                          // two retries of one job
        #expect(Set(request) == ["psh_1"])
        #expect(timeout == ["psh_2"])
    }

    @Test func rejectedRequestsAreDeadLetteredWithTheReasonAndNeverRetried() throws {
        let transport = ScriptedTransport(["alert": [.rejected(reason: "400 PayloadTooLarge")]])
        let f = try OutboxFixture()
        try f.start(transport)
        f.offlineDeviceWithTokens([("apns", "alert")])
        f.requestApproval()
        #expect(f.eventually { f.job(1)?.state == "dead" })
        #expect(f.job(1)?.lastError == "rejected: 400 PayloadTooLarge")
        Thread.sleep(forTimeInterval: 0.2)
        #expect(transport.attempts.count == 1)
    }

    @Test func pendingJobsAreSentAfterARestart() throws {
        let f = try OutboxFixture()
        try f.start(nil)                                  // no transport: the job stays in the outbox
        f.offlineDeviceWithTokens([("fcm", "f1")])
        f.requestApproval()
        #expect(f.eventually { f.job(1)?.state == "pending" })
        f.runtime.shutdown()
        let transport = ScriptedTransport([:])
        try f.start(transport)
        #expect(f.eventually { f.job(1)?.state == "sent" })
        #expect(transport.attempts == [.init(token: "f1", kind: "alert", type: "approval_request")])
    }
}
