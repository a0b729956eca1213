@testable import Gateway
import GatewayProtocol
import JSON
import Testing

/// The bodies of backend webhook jobs, as stored in the outbox and posted as they are.
@Suite struct BackendWebhookBodyTests {
    @Test(arguments: [(ApprovalState.approved, "approval_approved"), (.denied, "approval_denied"), (.timedOut, "approval_timed_out")])
    func anApprovalsTypeIsItsWireState(state: ApprovalState, type: String) {
        let approval = ApprovalRecord(id: "apr_1", userId: "ann", sessionId: "s1", toolName: "shell", summary: "ls", state: state,
                                      createdAt: 1, expiresAt: 2, resolvedAt: 2)
        let job = BackendWebhook.approval(approval, now: 5)
        #expect(job.target == PushTarget(provider: "backend", token: "", kind: "approval"))
        #expect(job.userId == "ann" && job.deviceId == "" && job.nextAttemptAt == 5 && job.notice.type == type)
        guard case .object(let body)? = job.notice.payload, case .object(let data)? = body["approval"] else {
            Issue.record("no body: \(String(describing: job.notice.payload))")
            return
        }
        #expect(body["type"] == .string(type) && body["userId"] == .string("ann"))
        #expect(data["state"] == .string(state.rawValue) && data["requestId"] == .string("apr_1"))
    }

    @Test func anInviteCarriesItsFieldsAndDeepLinkNotASentence() {
        let invite = InviteRecord(code: "ABCD2345", groupId: "fam", inviterId: "olga", recipient: "kim@example.com", role: "member",
                                  createdAt: 1, expiresAt: 9)
        let job = BackendWebhook.invite(invite, recipient: "kim@example.com", groupName: "Family",
                                        inviter: UserRef(userId: "olga", hexCode: "A1B2", displayName: "Olga"), deepLinkScheme: "myapp", now: 1)
        #expect(job.target.kind == "invite" && job.userId == "olga")
        guard case .object(let body)? = job.notice.payload, case .object(let delivery)? = body["delivery"] else {
            Issue.record("no body")
            return
        }
        #expect(delivery == [
            "channel": .string("email"), "to": .string("kim@example.com"), "code": .string("ABCD2345"), "groupId": .string("fam"),
            "groupName": .string("Family"), "role": .string("member"), "inviterId": .string("olga"), "inviterName": .string("Olga"),
            "expiresAt": .int(9), "deepLink": .string("myapp://invite/ABCD2345"),
        ])
    }
}
