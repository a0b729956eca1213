import Foundation
import SwitchboardClient
import Testing

/// docs/CLIENTS.md's SwiftUI example: its model (everything but the SwiftUI view, which needs an Apple platform) is
/// `DocExamples/GatewayModel.swift`, shown verbatim in the doc and driven here against a real in-process gateway.
@Suite struct ClientsDocExampleTests {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    @Test func theDocShowsTheCompiledModelVerbatimAndTheViewUsesOnlyItsAPI() throws {
        let doc = try String(contentsOf: Self.testsDirectory.appendingPathComponent("../../docs/CLIENTS.md"), encoding: .utf8)
        let model = try String(contentsOf: Self.testsDirectory.appendingPathComponent("DocExamples/GatewayModel.swift"), encoding: .utf8)
        #expect(doc.contains("```swift\n" + model + "```\n"), "docs/CLIENTS.md must show DocExamples/GatewayModel.swift as it is")
        // The view (not compiled on Linux) may only use what the model and the library offer.
        let view = try #require(doc.range(of: "struct ApprovalCard: View").map { String(doc[$0.lowerBound...].prefix { $0 != "`" }) })
        for use in ["model.approval", "model.banner", "model.answer(approve: false)", "model.answer(approve: true)",
                    "request.summary", "model.clock.remainingSeconds(of: request, deviceNow:"] {
            #expect(view.contains(use), "the view should use \(use)")
        }
    }

    @Test(.timeLimit(.minutes(1))) func theModelShowsApprovalsClearsThemAndRaisesTheHandoffBanner() async throws {
        let (server, model, running) = try await Self.liveModel()
        let port = server.port
        let mac = TestDevice(port: { port }, user: "lea", device: "lea-mac", clientType: "desktop")
        await mac.start()
        try await mac.waitConnected()

        // The Mac takes the session over from the phone: the phone shows the banner.
        try await model.client.attach(session: "deploy")
        #expect(await model.banner == nil)
        try await mac.client.attach(session: "deploy")
        try await Self.eventually("the banner") { model.banner == "Continued on your Mac" }

        // A request shows on the card with its countdown; Approve answers it, clears the card, and (acting in the
        // session) makes the phone the active device again, which takes the banner down.
        let first = try Self.createApproval(server)
        try await Self.eventually("the card") { model.approval?.requestId == first }
        let (shown, clock) = await (model.approval, model.clock)
        let remaining = shown.map { clock.remainingSeconds(of: $0, deviceNow: Int64(Date().timeIntervalSince1970 * 1000)) } ?? 0
        #expect(remaining > 50 && remaining <= 60, "countdown \(remaining)")
        try await model.answer(approve: true)
        #expect(await model.approval == nil)
        try await mac.waitFor("the phone's decision") { events in
            events.contains { if case .approvalResolved(let a) = $0 { a.requestId == first && a.state == "approved" } else { false } }
        }
        try await Self.eventually("the banner taken down") { model.banner == nil }

        // Decided on the Mac: the phone's card goes away by itself, and a late tap is no error.
        let second = try Self.createApproval(server)
        try await Self.eventually("the second card") { model.approval?.requestId == second }
        try await mac.waitFor("the second request on the Mac") { $0.contains { if case .approvalRequest(let a) = $0 { a.requestId == second } else { false } } }
        _ = try await mac.client.deny(second)
        try await model.answer(approve: true)
        try await Self.eventually("the card cleared") { model.approval == nil }
        try await Self.eventually("the banner again: the Mac's answer made it active") { model.banner == "Continued on your Mac" }

        await model.client.disconnect()
        await running.value  // run() ends with the client
        await mac.stop()
    }

    @Test(.timeLimit(.minutes(1))) func anUnansweredRequestTimesOutAndLeavesTheCard() async throws {
        let (server, model, running) = try await Self.liveModel()
        // Long enough that the card is seen on a loaded machine before the deadline takes it away (0.3 s was not).
        let requestId = try Self.createApproval(server, timeoutSeconds: 3)
        try await Self.eventually("the card") { model.approval?.requestId == requestId }
        try await Self.eventually("the card gone at the deadline") { model.approval == nil }
        let pending = try await model.client.pendingApprovals()
        #expect(pending.approvals.isEmpty && pending.badge == 0)
        await model.client.disconnect()
        await running.value
    }

    /// A gateway with lea's session "deploy", and the example's model for lea's phone, running and live.
    static func liveModel() async throws -> (GatewayTestServer, GatewayModel, Task<Void, Never>) {
        let server = try GatewayTestServer()
        #expect(try server.api("POST", "/v1/sessions", ["userId": "lea", "sessionId": "deploy", "title": "Deploy"]).status == 201)
        let configuration = SwitchboardClient.Configuration(url: "ws://127.0.0.1:\(server.port)/v1/ws") { _ in
            GatewayTestServer.token(user: "lea", device: "lea-phone")
        }
        let model = await GatewayModel(client: SwitchboardClient(configuration), deviceId: "lea-phone")
        let running = Task { await model.run() }
        _ = try await model.client.presence()  // answered once the phone is live: it now gets every new event
        return (server, model, running)
    }

    static func createApproval(_ server: GatewayTestServer, timeoutSeconds: Double = 60) throws -> String {
        let created = try server.api("POST", "/v1/sessions/deploy/approvals", ["toolName": "shell", "summary": "deploy to prod", "timeoutSeconds": timeoutSeconds])
        return try #require(GatewayJSON.string(created.json, "requestId"))
    }

    /// Polls main-actor state (up to 30 s).
    @MainActor static func eventually(_ what: String, _ condition: @MainActor () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(30)
        while !condition() {
            guard Date() < deadline else { throw TestFailure("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
