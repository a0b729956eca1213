import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Backend webhooks end to end: a real gateway writes them to the outbox with the event, signs them and POSTs them
/// through libcurl to `webhook_server.py`, a Standard Webhooks receiver written from the spec with Python's standard
/// library (not the server's code), which checks every signature — and has the reference `standardwebhooks` package
/// check it too — and scripts its answers by path.
@Suite struct BackendWebhookTests {
    static let secret = PushEndToEndProviders.webhookSecret

    /// A fresh receiver (its own process and log) and a gateway posting approvals to `path` on it.
    struct Setup {
        let sink: PushEndToEndFakeProvider
        let server: GatewayTestServer

        init(path: String, directory: TemporaryDirectory? = nil, sink: PushEndToEndFakeProvider? = nil,
             configure: (inout GatewayRuntime.Options) -> Void = { _ in }) throws {
            let sink = try sink ?? PushEndToEndFakeProvider(script: "webhook_server.py", arguments: ["{log}", BackendWebhookTests.secret])
            self.sink = sink
            server = try GatewayTestServer(directory: directory, pushTransport: nil, pushRetryDelay: { attempt, _ in attempt < 12 ? 20 : nil }) { o in
                o.approvalWebhookURL = "http://127.0.0.1:\(sink.port)\(path)"
                o.webhookSecret = BackendWebhookTests.secret
                configure(&o)
            }
        }

        /// An approval in a new session of `ann` that times out after 200 ms (the test server's minimum).
        func approvalTimingOut(session: String = "s1") throws -> String {
            #expect(try server.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": session]).status == 201)
            let created = try server.api("POST", "/v1/sessions/\(session)/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": 0.2])
            return try #require(GatewayJSON.string(created.json, "requestId"))
        }

        /// The receiver's records once `condition` holds for them, or what it had after `seconds`.
        func records(within seconds: Double = 10, until condition: ([[String: Any]]) -> Bool) -> [[String: Any]] {
            BackendWebhookTests.records(of: sink, within: seconds, until: condition)
        }
    }

    /// `sink`'s records once `condition` holds for them (polled every 20 ms), or what it had after `seconds`.
    static func records(of sink: PushEndToEndFakeProvider, within seconds: Double,
                        until condition: ([[String: Any]]) -> Bool) -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let records = sink.records()
            if condition(records) { return records }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return sink.records()
    }

    @Test func aTimedOutApprovalIsPostedSignedAndTheSignatureVerifiesIndependently() throws {
        let s = try Setup(path: "/ok")
        defer { s.sink.stop() }
        let id = try s.approvalTimingOut()
        let records = s.records { !$0.isEmpty }
        let record = try #require(records.first)
        #expect(record["signature_valid"] as? Bool == true)
        // And by the reference library (Python `standardwebhooks`, scripts/requirements-test.txt).
        #expect(PushEndToEndFakeProvider.referenceLibraryVerified(record), "standardwebhooks: \(record["library_valid"] ?? "not installed")")
        #expect(record["status"] as? Int == 204)
        let body = try #require(PushEndToEndFakeProvider.body(record))
        #expect(body["type"] as? String == "approval_timed_out")
        #expect(body["userId"] as? String == "ann")
        #expect(GatewayJSON.string(body, "approval", "requestId") == id)
        #expect(GatewayJSON.string(body, "approval", "state") == "timed_out")
        let webhookID = try #require(PushEndToEndFakeProvider.header(record, "webhook-id"))
        #expect(webhookID.hasPrefix("psh_"))
        let timestamp = try #require(PushEndToEndFakeProvider.header(record, "webhook-timestamp").flatMap { Int64($0) })
        #expect(abs(timestamp - Int64(Date().timeIntervalSince1970)) < 60)
        // Sent once: the outbox recorded the success.
        #expect(s.records { _ in false }.count == 1)
    }

    @Test func aBackendDownForLongerThanTheOldThreeAttemptsStillGetsTheWebhookWithTheSameId() throws {
        // The receiver answers 503 five times, then 204; the outbox backs off 20 ms between attempts here.
        let s = try Setup(path: "/outage/5/approvals")
        defer { s.sink.stop() }
        _ = try s.approvalTimingOut()
        let records = s.records { $0.contains { $0["status"] as? Int == 204 } }
        #expect(records.map { $0["status"] as? Int } == [503, 503, 503, 503, 503, 204])
        #expect(Set(records.compactMap { PushEndToEndFakeProvider.header($0, "webhook-id") }).count == 1)
        #expect(records.allSatisfy { $0["signature_valid"] as? Bool == true && PushEndToEndFakeProvider.referenceLibraryVerified($0) })
    }

    @Test func jobsPendingWhenTheGatewayStopsAreSentAfterItStartsAgain() throws {
        let sink = try PushEndToEndFakeProvider(script: "webhook_server.py", arguments: ["{log}", Self.secret])
        defer { sink.stop() }
        let directory = try TemporaryDirectory()
        // First run: the backend is down for good (every answer 503, only a few attempts before the stop).
        let first = try Setup(path: "/broken", directory: directory, sink: sink)
        _ = try first.approvalTimingOut()
        #expect(first.records { $0.count >= 2 }.count >= 2)
        first.server.shutdown()
        let seen = sink.records().count
        // Second run on the same database: the backend is back; the job written by the first run is delivered.
        let second = try Setup(path: "/ok", directory: directory, sink: sink)
        defer { second.server.shutdown() }
        let records = second.records { $0.dropFirst(seen).contains { $0["status"] as? Int == 204 } }
        let delivered = records.dropFirst(seen).filter { $0["status"] as? Int == 204 }
        #expect(delivered.count == 1)
        #expect(GatewayJSON.string(delivered.first.flatMap(PushEndToEndFakeProvider.body), "type") == "approval_timed_out")
        #expect(PushEndToEndFakeProvider.header(delivered[0], "webhook-id") == PushEndToEndFakeProvider.header(records[0], "webhook-id"))
    }

    @Test func presenceEventsComeOncePerChangeAfterTheGraceNotPerSocket() throws {
        let s = try Setup(path: "/ok") { o in
            o.presenceWebhook = true
            o.settings.presenceGraceMs = 3_000
        }
        defer { s.sink.stop() }
        let phone = try s.server.connect(user: "ann", device: "phone")
        let online = s.records { !$0.isEmpty }
        let first = try #require(online.first.flatMap(PushEndToEndFakeProvider.body))
        #expect(first["type"] as? String == "user_online" && first["userId"] as? String == "ann" && first["devices"] as? Int == 1)
        #expect(online.first?["signature_valid"] as? Bool == true)
        // A second device, and the only one dropping and coming back within the grace: no events.
        let laptop = try s.server.connect(user: "ann", device: "laptop")
        phone.disconnect()
        laptop.disconnect()
        let back = try s.server.connect(user: "ann", device: "phone")
        back.disconnect()
        // Offline once the grace has run out after the last device left.
        let records = s.records { $0.count >= 2 }
        #expect(records.compactMap { PushEndToEndFakeProvider.body($0)?["type"] as? String } == ["user_online", "user_offline"])
        let last = try #require(records.last.flatMap(PushEndToEndFakeProvider.body))
        #expect(last["devices"] as? Int == 0 && last["userId"] as? String == "ann")
    }

    @Test func anInviteIsPostedSignedWithItsFields() throws {
        let sink = try PushEndToEndFakeProvider(script: "webhook_server.py", arguments: ["{log}", Self.secret])
        defer { sink.stop() }
        let server = try RelationshipServer(inviteWebhookURL: "http://127.0.0.1:\(sink.port)/ok")
        let olga = try server.register("olga-invites-device")
        #expect(try server.http("POST", "/v1/groups", #"{"ownerId":"\#(olga.userId)","groupId":"fam","name":"Family"}"#).0 == 201)
        let (invited, invite) = try server.http("POST", "/v1/groups/fam/invites", #"{"inviterId":"\#(olga.userId)","email":"Kim@Example.com"}"#)
        #expect(invited == 201)
        let record = try #require(Self.records(of: sink, within: 10) { !$0.isEmpty }.first)
        #expect(record["signature_valid"] as? Bool == true && PushEndToEndFakeProvider.referenceLibraryVerified(record))
        let body = try #require(PushEndToEndFakeProvider.body(record))
        let delivery = try #require(body["delivery"] as? [String: Any])
        #expect(body["type"] as? String == "invite" && delivery["channel"] as? String == "email" && delivery["to"] as? String == "kim@example.com")
        #expect(delivery["code"] as? String == invite["code"] as? String && delivery["groupName"] as? String == "Family")
        #expect(delivery["inviterName"] as? String == olga.hexCode)   // no display name: the hex code
        #expect(delivery["deepLink"] as? String == "switchboard://invite/\(invite["code"] as? String ?? "")")
    }

    @Test func aMalformedOrMissingSecretRefusesToStartNamingTheKey() throws {
        for secret in ["whsec_not base64!", "nope", "whsec_" + Data(repeating: 1, count: 8).base64EncodedString(), ""] {
            do {
                _ = try GatewayTestServer { o in
                    o.approvalWebhookURL = "http://127.0.0.1:9/hook"
                    o.webhookSecret = secret
                }
                Issue.record("\(secret) was accepted")
            } catch {
                #expect("\(error)".contains("gateway.webhook_secret: "), "\(error)")
            }
        }
    }
}
