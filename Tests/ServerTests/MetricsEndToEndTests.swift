import Foundation
import Glibc
import Testing

/// `/metrics` of the real executable moves with what clients do: a delivered event, an approval answered and one
/// missed, a recovered and an unrecovered resume, and the process's own readings.
///
/// No polling of /metrics: the hub updates a counter before the frame that tells the client about it leaves the hub
/// (its frames go to the sockets when its loop iteration ends), and an event's delivery is observed before the
/// socket is written, so by the time the client has read a frame the scrape must show it.
@Suite struct MetricsEndToEndTests {
    static func isEvent(_ type: String, for id: String) -> ([String: Any]) -> Bool {
        { $0["type"] as? String == type && GatewayJSON.string($0, "data", "requestId") == id }
    }

    @Test(.timeLimit(.minutes(1))) func deliveriesApprovalsResumesAndTheProcessMoveTheMetrics() throws {
        try #require(FileManager.default.isExecutableFile(atPath: GatewayProcess.executable), "build the switchboard executable first")
        let directory = try TemporaryDirectory()
        let (process, port) = try GatewayProcess.launch(directory: directory)
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        let before = try MetricsScrape.fetch(port: port)

        #expect(try GatewayHTTP.request(port: port, "POST", "/v1/users", ["userId": "mia"]).status == 201)
        let token = GatewayTestServer.token(user: "mia", device: "mia-phone")
        let phone = try GatewayTestClient(port: port, path: "/v1/ws?token=\(token)")
        _ = try phone.next("welcome")

        // An event delivered live.
        let published = try GatewayHTTP.request(port: port, "POST", "/v1/users/mia/events", ["name": "step", "payload": ["n": 1]])
        #expect(published.status == 201)
        _ = try phone.next("custom")

        // One approval answered, one left to time out (a missed approval).
        #expect(try GatewayHTTP.request(port: port, "POST", "/v1/sessions", ["userId": "mia", "sessionId": "s1", "title": "Build"]).status == 201)
        _ = try phone.next("session_created")
        func requestApproval(timeoutSeconds: Double) throws -> String {
            let created = try GatewayHTTP.request(port: port, "POST", "/v1/sessions/s1/approvals",
                                                  ["toolName": "shell", "summary": "make", "timeoutSeconds": timeoutSeconds])
            #expect(created.status == 201)
            return try #require(GatewayJSON.string(created.json, "requestId"))
        }
        let answered = try requestApproval(timeoutSeconds: 30)
        _ = try phone.next(where: Self.isEvent("approval_request", for: answered))
        #expect(GatewayJSON.string(try phone.command("approve", ["requestId": answered]), "result", "state") == "approved")
        let missed = try requestApproval(timeoutSeconds: 1)
        let timeout = try phone.next(timeout: 5, where: Self.isEvent("approval_timeout", for: missed))
        #expect(GatewayJSON.string(timeout, "data", "state") == "timed_out")

        // Two resumes: from the start of the log (recovered) and from beyond its end (recovered: false).
        let fromStart = try GatewayTestClient(port: port, path: "/v1/ws?token=\(token)&offset=0")
        #expect(GatewayJSON.bool(try fromStart.next("resume"), "data", "recovered") == true)
        let ahead = try GatewayTestClient(port: port, path: "/v1/ws?token=\(token)&offset=1000000")
        #expect(GatewayJSON.bool(try ahead.next("resume"), "data", "recovered") == false)

        let after = try MetricsScrape.fetch(port: port)
        // Resumes and the recovery rate.
        #expect(try after.delta("switchboard_gateway_resumes_total", since: before) == 2)
        #expect(try after.delta("switchboard_gateway_resumes_unrecovered_total", since: before) == 1)
        // Approvals: one answered (its time-to-answer observed, well under the 30 s deadline), one missed.
        #expect(try after.delta("switchboard_gateway_approvals_resolved_total", since: before) == 1)
        #expect(try after.delta("switchboard_gateway_approvals_timed_out_total", since: before) == 1)
        #expect(try after.delta("switchboard_gateway_approval_answer_seconds_count", since: before) == 1)
        #expect(try after.value("switchboard_gateway_approval_answer_seconds_sum") < 30)
        #expect(try after.value("switchboard_gateway_approval_answer_seconds_bucket{le=\"+Inf\"}") == 1)
        // Deliveries: at least the custom event, session_created, the request, its resolution and the timeout went
        // out live; commits at least the user, the event, the session and both decisions.
        #expect(try after.delta("switchboard_gateway_event_delivery_seconds_count", since: before) >= 5)
        #expect(try after.delta("switchboard_gateway_commit_seconds_count", since: before) >= 5)
        for family in ["switchboard_gateway_event_delivery_seconds", "switchboard_gateway_commit_seconds"] {
            let count = try after.value(family + "_count")
            #expect(try after.value(family + "_bucket{le=\"+Inf\"}") == count)
            #expect(try after.value(family + "_bucket{le=\"10\"}") <= count)   // cumulative buckets
            #expect(try after.value(family + "_sum") > 0)
        }
        // Storage and the push outbox (no push providers: nothing queued, nothing dead).
        #expect(try after.value("switchboard_store_database_bytes") > 4096)
        #expect(try after.value("switchboard_push_outbox_depth") == 0)
        #expect(try after.value("switchboard_push_dead_letters_total") == 0)
        #expect(try after.value("switchboard_push_delivery_seconds_bucket{provider=\"apns\",le=\"5\"}") == 0)
        // The process: CPU spent, memory resident, and the three client sockets among its open descriptors.
        #expect(try after.value("process_cpu_seconds_total") > 0)
        #expect(try after.value("process_resident_memory_bytes") > 1_000_000)
        #expect(try after.value("process_open_fds") >= before.value("process_open_fds") + 3)
        #expect(try after.value("process_max_fds") >= after.value("process_open_fds"))
        for family in ["process_cpu_seconds_total": "counter", "process_open_fds": "gauge",
                       "switchboard_gateway_event_delivery_seconds": "histogram", "switchboard_push_delivery_seconds": "histogram"] {
            #expect(after.families[family.key] == family.value)
        }
        withExtendedLifetime((phone, fromStart, ahead)) {}
    }
}
