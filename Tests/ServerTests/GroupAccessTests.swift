import Foundation
import Testing

/// Who may act on a group over the socket: a non-member cannot tell an existing group from a missing one, and a member
/// who is gone cannot come back (or let anyone in) with an invite she made.
@Suite struct GroupAccessTests {
    /// Every group command a client can send, for `groupId`.
    static func groupCommands(_ groupId: String, member: String) -> [String] {
        [
            #""type":"group_get","groupId":"\#(groupId)""#,
            #""type":"group_leave","groupId":"\#(groupId)""#,
            #""type":"group_remove_member","groupId":"\#(groupId)","userId":"\#(member)""#,
            #""type":"group_send_message","groupId":"\#(groupId)","text":"hello""#,
            #""type":"group_send_message","groupId":"\#(groupId)","text":"   ""#,
            #""type":"send_event","groupId":"\#(groupId)","name":"ping""#,
            #""type":"invite_create","groupId":"\#(groupId)""#,
            #""type":"invite_create","groupId":"\#(groupId)","phone":"+44 20 7946 0002""#,
            #""type":"invite_create","groupId":"\#(groupId)","role":"owner""#,
        ]
    }

    /// The error of every group command for an existing group and for a missing one, from a non-member and from a
    /// removed member: the same code and the same text (but for the id it was given), and never the group's name.
    @Test func aNonMemberGetsGroupNotFoundFromEveryGroupCommandWhetherOrNotTheGroupExists() throws {
        let server = try RelationshipServer()
        let ann = try server.register("ann-device")
        let bob = try server.register("bob-device")
        let eve = try server.register("eve-device")
        let (created, _) = try server.http("POST", "/v1/groups", #"{"ownerId":"\#(ann.userId)","groupId":"fam","name":"Secret Family"}"#)
        #expect(created == 201)
        let (added, _) = try server.http("POST", "/v1/groups/fam/members", #"{"userId":"\#(bob.userId)"}"#)
        #expect(added == 200)
        let a = try server.socket(token: ann.token)
        #expect(result(try a.command(#""type":"group_remove_member","groupId":"fam","userId":"\#(bob.userId)""#))["groupId"] as? String == "fam")
        for (who, token) in [("a non-member", eve.token), ("a removed member", bob.token)] {
            let socket = try server.socket(token: token)
            for (existing, missing) in zip(Self.groupCommands("fam", member: ann.userId), Self.groupCommands("nope", member: ann.userId)) {
                let there = try socket.command(existing), absent = try socket.command(missing)
                let thereError = there["error"] as? [String: Any], absentError = absent["error"] as? [String: Any]
                #expect(errorCode(there) == "group_not_found", "\(who): \(existing) answered \(there)")
                #expect(errorCode(absent) == "group_not_found", "\(who): \(missing) answered \(absent)")
                let thereText = (thereError?["message"] as? String ?? "").replacingOccurrences(of: "fam", with: "<id>")
                let absentText = (absentError?["message"] as? String ?? "").replacingOccurrences(of: "nope", with: "<id>")
                #expect(thereText == absentText, "\(who): \(existing)")
                #expect(!"\(there)".contains("Secret"), "\(who): \(existing) named the group: \(there)")
            }
        }
        // The group is untouched: ann is still its only member, and members still get their answers.
        let group = result(try a.command(#""type":"group_get","groupId":"fam""#))
        #expect(group["name"] as? String == "Secret Family" && (group["members"] as? [Any])?.count == 1)
    }

    /// A member makes invites, the owner removes her: neither she nor anyone else can redeem them. The owner's
    /// invite still works.
    @Test func invitesOfARemovedMemberAreRevokedForHerAndForEveryoneElse() throws {
        let server = try RelationshipServer()
        let ann = try server.register("ann-device")
        let bob = try server.register("bob-device")
        let cid = try server.register("cid-device")
        let dan = try server.register("dan-device")
        let (created, _) = try server.http("POST", "/v1/groups", #"{"ownerId":"\#(ann.userId)","groupId":"fam","name":"Family"}"#)
        #expect(created == 201)
        let a = try server.socket(token: ann.token)
        let b = try server.socket(token: bob.token)
        let bobJoins = try #require(result(try a.command(#""type":"invite_create","groupId":"fam""#))["code"] as? String)
        #expect(result(try b.command(#""type":"invite_redeem","code":"\#(bobJoins)""#))["groupId"] as? String == "fam")
        let forHerself = try #require(result(try b.command(#""type":"invite_create","groupId":"fam""#))["code"] as? String)
        let forCid = try #require(result(try b.command(#""type":"invite_create","groupId":"fam""#))["code"] as? String)
        let forDan = try #require(result(try a.command(#""type":"invite_create","groupId":"fam""#))["code"] as? String)
        #expect(result(try a.command(#""type":"group_remove_member","groupId":"fam","userId":"\#(bob.userId)""#))["groupId"] as? String == "fam")

        #expect(errorCode(try b.command(#""type":"invite_redeem","code":"\#(forHerself)""#)) == "invite_revoked")
        let c = try server.socket(token: cid.token)
        #expect(errorCode(try c.command(#""type":"invite_redeem","code":"\#(forCid)""#)) == "invite_revoked")
        let (status, body) = try server.http("POST", "/v1/invites/\(forHerself)/redeem", #"{"userId":"\#(cid.userId)"}"#)
        #expect(status == 410 && (body["error"] as? [String: Any])?["code"] as? String == "invite_revoked")
        let d = try server.socket(token: dan.token)
        #expect(result(try d.command(#""type":"invite_redeem","code":"\#(forDan)""#))["groupId"] as? String == "fam")
        let members = (result(try a.command(#""type":"group_get","groupId":"fam""#))["members"] as? [[String: Any]] ?? [])
            .compactMap { ($0["user"] as? [String: Any])?["userId"] as? String }
        #expect(Set(members) == [ann.userId, dan.userId])
    }
}
