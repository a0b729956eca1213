import Foundation
import Gateway
import Testing

/// Invites are texts sent by SMS and e-mail on a user's behalf: each user, and the node as a whole, may make only so
/// many per day, and the group name they quote keeps the display-name rules.
@Suite struct InviteLimitTests {
    /// Limits lowered so the test reaches them: 3 invites per user, 5 per node.
    static var settings: GatewaySettings {
        var settings = GatewaySettings()
        settings.relationships.invitesPerUserPerDay = 3
        settings.relationships.invitesPerNodePerDay = 5
        return settings
    }

    @Test func invitesArePerUserAndPerNodeLimitedOnTheSocketAndOverHTTP() throws {
        let hook = try WebhookReceiver(statuses: Array(repeating: 200, count: 5))
        let server = try RelationshipServer(inviteWebhookURL: "http://127.0.0.1:\(hook.port)/invites", settings: Self.settings)
        let ann = try server.register("ann-device")
        let bob = try server.register("bob-device")
        let cid = try server.register("cid-device")
        let a = try server.socket(token: ann.token)
        let b = try server.socket(token: bob.token)
        let c = try server.socket(token: cid.token)
        let annGroup = try #require(result(try a.command(#""type":"group_create","name":"Ann's""#))["groupId"] as? String)
        let bobGroup = try #require(result(try b.command(#""type":"group_create","name":"Bob's""#))["groupId"] as? String)
        let cidGroup = try #require(result(try c.command(#""type":"group_create","name":"Cid's""#))["groupId"] as? String)

        // Ann: an SMS, an e-mail and a shareable code, then the fourth is refused with when to retry.
        for fields in [#""phone":"+442079460101""#, #""email":"one@example.org""#, #""role":"member""#] {
            #expect(result(try a.command(#""type":"invite_create","groupId":"\#(annGroup)",\#(fields)"#))["code"] != nil, "\(fields)")
        }
        let refused = try a.command(#""type":"invite_create","groupId":"\#(annGroup)","phone":"+442079460104""#)
        let error = try #require(refused["error"] as? [String: Any])
        #expect(error["code"] as? String == "rate_limited")
        let retryAfterMs = try #require(error["retryAfterMs"] as? Int)
        #expect(retryAfterMs > 0 && retryAfterMs <= 86_400_000)
        let (status, body, headers) = try server.httpResponse("POST", "/v1/groups/\(annGroup)/invites",
                                                              #"{"inviterId":"\#(ann.userId)","phone":"+442079460105"}"#)
        #expect(status == 429 && (body["error"] as? [String: Any])?["code"] as? String == "rate_limited")
        #expect(Int(headers.values("Retry-After").first ?? "").map { $0 > 0 && $0 <= 86_400 } == true, "\(headers)")

        // Bob has his own 3, but the node only 2 more: the node's limit refuses his third and Cid's first.
        for phone in ["+442079460201", "+442079460202"] {
            #expect(result(try b.command(#""type":"invite_create","groupId":"\#(bobGroup)","phone":"\#(phone)""#))["code"] != nil)
        }
        #expect(errorCode(try b.command(#""type":"invite_create","groupId":"\#(bobGroup)","phone":"+442079460203""#)) == "rate_limited")
        #expect(errorCode(try c.command(#""type":"invite_create","groupId":"\#(cidGroup)""#)) == "rate_limited")

        // The accepted invites with a recipient (four: the code has none) were handed to the webhook, no refused one.
        let delivered = hook.waitForBodies(4)
        #expect(delivered.count == 4)
        for refusedRecipient in ["+442079460104", "+442079460105", "+442079460203"] {
            #expect(!delivered.contains { $0.contains(refusedRecipient) })
        }
    }

    /// The attacker's group names: a right-to-left override, an isolate, a zero-width space, and a name longer than the
    /// bound are refused on the socket and over HTTP with the rule that failed; nothing is created.
    @Test func groupNamesKeepTheDisplayNameRules() throws {
        let server = try RelationshipServer()
        let ann = try server.register("ann-device")
        let a = try server.socket(token: ann.token)
        let names = [
            (#"Your account is locked\u202E: verify at http://evil.example/x"#, "U+202E"),
            (#"\u2067Family"#, "U+2067"),
            (#"Fam\u200Bily"#, "U+200B"),
            (String(repeating: "x", count: 65), "1 to 64 characters"),
        ]
        for (name, rule) in names {
            let reply = try a.command(#""type":"group_create","name":"\#(name)""#)
            #expect(errorCode(reply) == "invalid_field", "\(name)")
            #expect(((reply["error"] as? [String: Any])?["message"] as? String)?.contains(rule) == true, "\(reply)")
            let (status, body) = try server.http("POST", "/v1/groups", #"{"ownerId":"\#(ann.userId)","name":"\#(name)"}"#)
            #expect(status == 400 && ((body["error"] as? [String: Any])?["message"] as? String)?.contains(rule) == true, "\(body)")
        }
        #expect((result(try a.command(#""type":"group_list""#))["groups"] as? [Any])?.isEmpty == true)
        #expect(result(try a.command(#""type":"group_create","name":"Family 👩\u200D👩\u200D👧""#))["name"] as? String == "Family 👩\u{200D}👩\u{200D}👧")
    }

    /// Guessing codes: unknown codes count per user and per node (per hour); past a limit even a right code is refused
    /// before it is looked at, with when to retry.
    @Test func unknownInviteCodesAreLimitedPerUserAndPerNode() throws {
        var settings = GatewaySettings()
        settings.relationships.inviteRedeemFailuresPerUserPerHour = 3
        settings.relationships.inviteRedeemFailuresPerAddressPerHour = 100   // every test client shares 127.0.0.1
        settings.relationships.inviteRedeemFailuresPerNodePerHour = 5
        let server = try RelationshipServer(settings: settings)
        let ann = try server.register("ann-device")
        let eve = try server.register("eve-device")
        let mal = try server.register("mal-device")
        let dan = try server.register("dan-device")
        let a = try server.socket(token: ann.token)
        let groupId = try #require(result(try a.command(#""type":"group_create","name":"Family""#))["groupId"] as? String)
        let code = try #require(result(try a.command(#""type":"invite_create","groupId":"\#(groupId)""#))["code"] as? String)
        let forDan = try #require(result(try a.command(#""type":"invite_create","groupId":"\#(groupId)""#))["code"] as? String)

        let e = try server.socket(token: eve.token)
        for guess in ["AAAAAAAA", "BBBBBBBB", "CCCCCCCC"] {
            #expect(errorCode(try e.command(#""type":"invite_redeem","code":"\#(guess)""#)) == "invite_not_found")
        }
        let limited = try e.command(#""type":"invite_redeem","code":"\#(code)""#)   // a right code, after 3 wrong ones
        #expect(errorCode(limited) == "rate_limited")
        #expect(((limited["error"] as? [String: Any])?["retryAfterMs"] as? Int).map { $0 > 0 && $0 <= 3_600_000 } == true, "\(limited)")
        // Mal has his own 3, but the node only 2 more; then Dan's right code is refused too.
        let m = try server.socket(token: mal.token)
        for guess in ["DDDDDDDD", "EEEEEEEE"] {
            #expect(errorCode(try m.command(#""type":"invite_redeem","code":"\#(guess)""#)) == "invite_not_found")
        }
        #expect(errorCode(try m.command(#""type":"invite_redeem","code":"FFFFFFFF""#)) == "rate_limited")
        let d = try server.socket(token: dan.token)
        #expect(errorCode(try d.command(#""type":"invite_redeem","code":"\#(forDan)""#)) == "rate_limited")
        let (status, _, headers) = try server.httpResponse("POST", "/v1/invites/\(forDan)/redeem", #"{"userId":"\#(dan.userId)"}"#)
        #expect(status == 429 && !headers.values("Retry-After").isEmpty)
        // Nothing was redeemed: the group still has its owner alone.
        #expect((result(try a.command(#""type":"group_get","groupId":"\#(groupId)""#))["members"] as? [Any])?.count == 1)
    }
}
