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
        let client = ReplyRecordingClient()
        let created = DispatchSemaphore(value: 0)
        onHub { hub in
            hub.connect(client, resumeAfter: nil)
            // The session first: a Live Activity token is accepted only for an existing session of the user.
            hub.createSession(id: "s1", userId: "u1", title: nil) { _ in
                for (i, t) in tokens.enumerated() {
                    let json = #"{"id":"\#(i)","type":"push_register","kind":"\#(t.kind)","token":"\#(t.token)","sessionId":"s1"}"#
                    hub.handle(Array(json.utf8), from: client)
                }
                created.signal()
            }
        }
        // The hub answers each registration, and completes the session, once its write has committed.
        #expect(created.wait(timeout: .now() + 5) == .success)
        #expect(eventually { client.replies.count == tokens.count })
        #expect(client.replies.allSatisfy { $0.contains(#""ok":true"#) })
        onHub { hub in hub.disconnect(client) }
    }

    /// Requests an approval in s1 and waits until it is stored (its push jobs with it).
    func requestApproval(timeoutMs: Int64? = nil) {
        let failure = Mutex<String?>("no answer")
        let done = DispatchSemaphore(value: 0)
        onHub { hub in
            hub.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: timeoutMs, idempotencyKey: nil) { result in
                if case .failure(let error) = result { failure.withLock { $0 = "\(error)" } } else { failure.withLock { $0 = nil } }
                done.signal()
            }
        }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(failure.withLock { $0 } == nil)
    }

    func job(_ id: Int64) -> PushJobRecord? { try? runtime.store.pushJob(id: id) }

    /// Polls until `condition` holds (`seconds` at most).
    func eventually(seconds: Double = 3, _ condition: () -> Bool) -> Bool {
        ServeProcess.eventually(seconds, condition)
    }

    deinit {
        runtime?.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// u1's phone, keeping only the replies to its commands.
final class ReplyRecordingClient: GatewayClient, @unchecked Sendable {
    // @unchecked: `frames` behind the mutex.
    let userId = "u1", deviceId = "phone", clientType = "ios"
    private let frames = Mutex<[String]>([])
    var replies: [String] { frames.withLock { $0 } }
    func send(_ frame: [UInt8]) {
        let text = String(decoding: frame, as: UTF8.self)
        if text.hasPrefix(#"{"type":"reply""#) { frames.withLock { $0.append(text) } }
    }
    func close(code: UInt16, reason: String) {}
}

extension GatewayRuntime {
    /// Has the push outbox read due jobs `times` more times, waiting for each read (5 s at most): reads never overlap,
    /// so with two or more a whole read began after this call, and whatever it found due has been handed to the
    /// transport when this returns true. What "nothing more is sent" is asserted after, instead of a sleep.
    func outboxReadsAgain(times: Int = 2) -> Bool {
        guard let outbox = pushOutbox else { return false }
        for _ in 0..<times {
            let before = outbox.completedReads
            hubLoop.execute { outbox.drain() }   // a no-op while a read is under way: that read's end counts
            guard ServeProcess.eventually(5, { outbox.completedReads > before }) else { return false }
        }
        return true
    }
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
        // The retries are due 20 ms after each failure and go out on the outbox's next poll (every second), so the
        // request needs a deadline a few polls away: a retry that would land after it gives up instead.
        f.requestApproval(timeoutMs: 4_000)
        #expect(f.eventually(seconds: 8) { f.job(1)?.state == "sent" && f.job(2)?.state == "sent" })
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
        #expect(f.runtime.outboxReadsAgain())
        #expect(transport.attempts.count == 1)
        #expect(f.runtime.pushOutbox?.startedAttempts == 1)
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
