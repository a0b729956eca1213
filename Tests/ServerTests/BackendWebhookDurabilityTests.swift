import Foundation
import Glibc
@testable import GatewayRuntime
@testable import Server
import Storage
import TestSupport
import Testing

/// Backend webhooks survive `kill -9` of the real executable and are sent once each by nodes sharing one database,
/// checked at `webhook_server.py` (a Standard Webhooks receiver written from the spec, which verifies every signature).
@Suite struct BackendWebhookDurabilityTests {
    static let secret = BackendWebhookTests.secret

    /// The receiver's records once `condition` holds for them, or what it had after 20 s.
    static func records(of sink: PushEndToEndFakeProvider, until condition: ([[String: Any]]) -> Bool) -> [[String: Any]] {
        BackendWebhookTests.records(of: sink, within: 20, until: condition)
    }

    /// The delivered (2xx) records' webhook ids.
    static func deliveredIDs(_ records: [[String: Any]]) -> [String] {
        records.filter { ($0["status"] as? Int).map { (200..<300).contains($0) } == true }
            .compactMap { PushEndToEndFakeProvider.header($0, "webhook-id") }
    }

    /// One approval per entry of `users`, each in a new session, timing out after 200 ms (server API at `port`).
    static func approvalsTimingOut(port: UInt16, users: [String]) throws {
        for (i, user) in users.enumerated() {
            #expect(try GatewayHTTP.request(port: port, "POST", "/v1/sessions", ["userId": user, "sessionId": "s\(i)"],
                                            key: GatewayTestServer.apiKey).status == 201)
            let created = try GatewayHTTP.request(port: port, "POST", "/v1/sessions/s\(i)/approvals",
                                                  ["toolName": "shell", "summary": "ls", "timeoutSeconds": 0.2], key: GatewayTestServer.apiKey)
            #expect(created.status == 201)
        }
    }

    @Test(.timeLimit(.minutes(1))) func webhooksPendingAtKillNineAreDeliveredAfterTheRestartOnceEach() throws {
        try #require(FileManager.default.isExecutableFile(atPath: GatewayProcess.executable), "build the switchboard executable first")
        let sink = try PushEndToEndFakeProvider(script: "webhook_server.py", arguments: ["{log}", Self.secret])
        defer { sink.stop() }
        let directory = try TemporaryDirectory()
        func gateway(path: String) -> String {
            """
            [gateway]
            approval_min_timeout_ms = 100
            approval_webhook_url = "http://127.0.0.1:\(sink.port)\(path)"
            webhook_secret = "\(Self.secret)"
            """
        }
        // The backend is down (500 to everything): every webhook fails and waits for its retry.
        let (down, port) = try GatewayProcess.launch(directory: directory, extraSections: gateway(path: "/broken"))
        try Self.approvalsTimingOut(port: port, users: ["ann", "bob", "cy"])
        let failed = Self.records(of: sink) { Set($0.compactMap { PushEndToEndFakeProvider.header($0, "webhook-id") }).count == 3 }
        let ids = Set(failed.compactMap { PushEndToEndFakeProvider.header($0, "webhook-id") })
        #expect(ids.count == 3 && failed.allSatisfy { $0["status"] as? Int == 500 && $0["signature_valid"] as? Bool == true })
        kill(down.processIdentifier, SIGKILL)
        down.waitUntilExit()

        // Back up, same database: each webhook arrives, under the id it had, once (the outbox recorded each success).
        let (up, _) = try GatewayProcess.launch(directory: directory, port: port, extraSections: gateway(path: "/ok"))
        defer { kill(up.processIdentifier, SIGKILL); up.waitUntilExit() }
        let after = Self.records(of: sink) { Set(Self.deliveredIDs($0)) == ids }
        #expect(Set(Self.deliveredIDs(after)) == ids)
        #expect(Self.deliveredIDs(after).count == 3)
        #expect(after.filter { $0["status"] as? Int == 204 }.allSatisfy {
            PushEndToEndFakeProvider.body($0)?["type"] as? String == "approval_timed_out" && $0["signature_valid"] as? Bool == true
        })
    }

    @Test func twoNodesOnOneDatabaseSendEachWebhookOnce() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let sink = try PushEndToEndFakeProvider(script: "webhook_server.py", arguments: ["{log}", Self.secret])
        defer { sink.stop() }
        func node() throws -> GatewayTestServer {
            try GatewayTestServer(directory: nil, pushTransport: nil, pushRetryDelay: nil) { o in
                o.postgres = PostgresStoreOptions(url: url)
                o.approvalWebhookURL = "http://127.0.0.1:\(sink.port)/ok"
                o.webhookSecret = Self.secret
            }
        }
        let (a, b) = (try node(), try node())
        defer { a.shutdown(); b.shutdown() }
        // Several users, so both nodes have jobs to claim at once (one user's webhooks go out one at a time).
        let users = (1...6).flatMap { ["user\($0)", "user\($0)"] }
        try Self.approvalsTimingOut(port: a.port, users: users)
        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { reader.close() }
        let drained = Self.records(of: sink) { records in
            Set(Self.deliveredIDs(records)).count == users.count && (try? reader.pendingBackendWebhooks().count) == 0
        }
        #expect(Set(Self.deliveredIDs(drained)).count == users.count)
        #expect(Self.deliveredIDs(drained).count == users.count, "a webhook was sent twice")
        #expect(drained.allSatisfy { $0["signature_valid"] as? Bool == true })
    }
}
