import GatewayProtocol
import HTTP1
import Testing
@testable import ServerAPIRoutes

/// Every way a request can be wrong gets its precise status, code and message.
@Suite struct APIRefusalTests {
    @Test func aMalformedEscapeIsInvalidPath() {
        let refused = refusal("GET", "/v1/users/%zz")
        #expect(refused?.status == 400 && refused?.code == "invalid_path")
    }

    @Test func aSegmentOutsideTheIdGrammarIsInvalidIDNamingIt() {
        let refused = refusal("GET", "/v1/users/a%20b")
        #expect(refused?.status == 400 && refused?.code == "invalid_id")
        #expect(refused?.message.contains("\"a b\"") == true)
    }

    @Test func aDeviceEndpointsWrongMethodIs405WithAllow() {
        let register = refusal("GET", "/v1/devices/register")
        #expect(register?.status == 405 && register?.code == "method_not_allowed" && register?.headers["Allow"] == "POST")
        #expect(refusal("POST", "/v1/users/me/display-name")?.headers["Allow"] == "PUT")
    }

    @Test(arguments: [("GET", "/v1/users"), ("PATCH", "/v1/users/alice"), ("POST", "/v1/friend-requests/r1/maybe"),
                      ("GET", "/v1/nothing"), ("POST", "/v1/contacts/stop"), ("POST", "/v1/devices/d1/tokens")])
    func anUnknownRouteIsNoRoute404(_ method: String, _ path: String) {
        guard case .noRoute(let refused) = APIRoutes.match(HTTPRequestHead(method: method, target: path), standalone: true) else {
            Issue.record("\(method) \(path) matched a route"); return
        }
        #expect(refused.status == 404 && refused.code == "not_found" && refused.message == "no API route \(method) \(path)")
    }

    @Test(arguments: [
        // (body, code, words of the message)
        (#"{"userId":"a b"}"#, "invalid_id", "userId"),
        (#"{"displayName":"x"}"#, "missing_field", "\"userId\""),
        (#"{"userId":7}"#, "invalid_field", "\"userId\""),
        (#"{"userId":"a","userId":"b"}"#, "invalid_json", "body"),
        (#"[1]"#, "invalid_json", "not a JSON object"),
        (#"{"userId":"a",}"#, "invalid_json", "body"),
    ])
    func aBadUserBodyIsRefusedNamingTheField(_ body: String, _ code: String, _ words: String) {
        let refused = refusal("POST", "/v1/users", body: body)
        #expect(refused?.status == 400 && refused?.code == code)
        #expect(refused?.message.contains(words) == true, "\(refused?.message ?? "accepted")")
    }

    @Test(arguments: ["nan", "inf", "-inf", "x", "1e", "0x10", ""])
    func aWaitThatIsNoJSONNumberIsInvalidField(_ wait: String) {
        let refused = refusal("GET", "/v1/approvals/a1?wait=\(wait)")
        #expect(refused?.status == 400 && refused?.code == "invalid_field")
    }

    @Test func approvalsNeedAToolAndASummary() {
        #expect(refusal("POST", "/v1/sessions/s/approvals", body: #"{"toolName":"","summary":"x"}"#)?.code == "invalid_field")
        #expect(refusal("POST", "/v1/sessions/s/approvals", body: #"{"toolName":"t"}"#)?.code == "missing_field")
        #expect(refusal("POST", "/v1/sessions/s/approvals", body: #"{"toolName":"t","summary":"s","timeoutSeconds":"9"}"#)?.code == "invalid_field")
    }

    @Test func anIntegerBeyondItsTypeIsInvalidField() {
        #expect(refusal("POST", "/v1/groups", body: #"{"ownerId":"a","name":"n","maxMembers":1e300}"#)?.code == "invalid_field")
        #expect(refusal("POST", "/v1/groups", body: #"{"ownerId":"a","name":"n","maxMembers":9223372036854775808}"#)?.code == "invalid_field")
        #expect(refusal("POST", "/v1/groups", body: #"{"ownerId":"a","name":"n","roleLimits":{"parent":1.5}}"#)?.message.contains("roleLimits.parent") == true)
        #expect(refusal("POST", "/v1/groups/g/invites", body: #"{"inviterId":"a","expiresInHours":-9223372036854775809}"#)?.code == "invalid_field")
    }

    @Test func anEmptyBodyIsAnEmptyObject() throws {
        // Every field of the notification settings is optional: no body changes nothing, and is no error.
        guard case .setNotificationSettings("u", let settings) = try typed("PUT", "/v1/users/u/notification-settings").get() else {
            Issue.record("notification settings"); return
        }
        #expect(settings.liveActivities == nil && settings.presenceUpdates == nil)
        #expect(refusal("POST", "/v1/users")?.code == "missing_field")
    }

    @Test func gatewayErrorsMapToTheirStatusAndRetryAfter() {
        #expect(APIRefusal(GatewayError(.userNotFound, "x")).status == 404)
        #expect(APIRefusal(GatewayError(.inviteRevoked, "x")).status == 410)
        #expect(APIRefusal(GatewayError(.userBlocked, "x")).status == 409)
        #expect(APIRefusal(GatewayError(.overloaded, "x")).status == 503)
        #expect(APIRefusal(GatewayError(.deviceTokenTooWeak, "x")).status == 400)
        let limited = APIRefusal(GatewayError(.rateLimited, "slow down", retryAfterMs: 1_001))
        #expect(limited.status == 429 && limited.headers["Retry-After"] == "2")
        #expect(APIRefusal(GatewayError(.rateLimited, "x")).headers["Retry-After"] == nil)
        let response = limited.response
        #expect(response.status == 429 && String(decoding: response.body, as: UTF8.self)
                == #"{"error":{"status":429,"code":"rate_limited","message":"slow down"}}"#)
    }
}
