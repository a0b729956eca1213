import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Small protocol rules: each answer says precisely what was wrong (real sockets).
@Suite struct GatewaySmallProtocolTests {
    @Test func aBadClientTypeIsAnInvalidClaimAndAMissingOneAMissingClaim() throws {
        let server = try GatewayTestServer()
        let bad = try GatewayAuthTests.upgrade(server, query: "?token=" + GatewayTestServer.token(user: "u1", device: "d1", clientType: "toaster"))
        #expect(bad.status == 401)
        #expect(GatewayJSON.string(bad.json, "error", "message")?.hasPrefix("invalid_claim") == true)
    }

    @Test func fractionalApprovalTimeoutsCountToTheMillisecondAndHugeOnesAreOutOfRange() throws {
        let server = try GatewayTestServer()
        #expect(try server.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1"]).status == 201)
        let fractional = try server.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": 1.5])
        #expect(fractional.status == 201)
        let created = try #require(GatewayJSON.int(fractional.json, "createdAt"))
        #expect(GatewayJSON.int(fractional.json, "expiresAt") == created + 1_500)
        let huge = try server.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": 1e300])
        #expect(huge.errorCode == "timeout_out_of_range")
        #expect(try server.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": 2]).status == 201)
    }

    @Test func aBadWebhookURLNamesItsConfigKey() throws {
        for (url, key) in [("ftp://x/invites", "relationships.invite_webhook_url"), ("ftp://x/hook", "gateway.approval_webhook_url")] {
            do {
                _ = try GatewayTestServer { options in
                    if key.hasPrefix("relationships") { options.inviteWebhookURL = url } else { options.approvalWebhookURL = url }
                }
                Issue.record("\(url) was accepted")
            } catch {
                #expect("\(error)".hasPrefix(key + ": expected"), "\(error)")
            }
        }
    }

    @Test func aHistoryLimitOutsideOneToAHundredIsRefused() throws {
        let server = try GatewayTestServer()
        let ann = try server.connect(user: "ann", device: "a1")
        for limit in [0, 101, -5] {
            #expect(GatewayJSON.string(try ann.command("history", ["with": "bob", "limit": limit]), "error", "code") == "invalid_field")
        }
        #expect(try ann.command("history", ["with": "bob", "limit": 100])["ok"] as? Bool == true)
    }
}
