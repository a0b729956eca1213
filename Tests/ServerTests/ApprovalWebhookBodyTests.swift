import Foundation
import Gateway
@testable import GatewayRuntime
@testable import Server
import Testing

/// The approval webhook's body names the outcome by its documented wire string.
@Suite struct ApprovalWebhookBodyTests {
    @Test(arguments: [(ApprovalState.approved, "approval_approved"), (.denied, "approval_denied"), (.timedOut, "approval_timed_out")])
    func theTypeIsTheWireState(state: ApprovalState, type: String) throws {
        let approval = ApprovalRecord(id: "apr_1", userId: "ann", sessionId: "s1", toolName: "shell", summary: "ls", state: state,
                                      createdAt: 1, expiresAt: 2, resolvedAt: 2)
        let body = try JSONSerialization.jsonObject(with: Data(ApprovalWebhook.body(approval)))
        #expect(GatewayJSON.string(body, "type") == type)
        #expect(GatewayJSON.string(body, "userId") == "ann")
        #expect(GatewayJSON.string(body, "approval", "state") == state.rawValue)
    }
}
