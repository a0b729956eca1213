@testable import Gateway
import GatewayProtocol
import Testing

/// `GroupPost` alone: the rules in the order clients see them (content, group, membership) and what an accepted
/// message or event commits and answers.
@Suite struct GroupPostTests {
    let ann = UserRef(userId: "ann", hexCode: "0000000a", displayName: "Ann")
    var family: GroupPost.State { GroupPost.State(groupId: "g1", activeMembers: ["ann", "bob", "cid"], sender: ann) }
    var missing: GroupPost.State { GroupPost.State(groupId: "g9", activeMembers: nil, sender: ann) }

    func message(_ text: String, from: String = "ann", key: String? = nil) -> GroupPost.Input {
        .message(from: from, text: text, clientMessageId: key)
    }

    @Test func aMessageGoesTrimmedToEveryActiveMemberTheSenderIncluded() {
        let actions = GroupPost.transition(family, message("  hi all \n", key: "m-1"), maxCharacters: 500, now: 1_000)
        let data = GroupMessageData(groupId: "g1", from: ann, text: "hi all", sentAt: 1_000, clientMessageId: "m-1")
        #expect(actions == [.commitMessage(data, logs: ["ann", "bob", "cid"]), .reply(SentAt(sentAt: 1_000))])
        #expect(GroupPost.Event.message.rawValue == "group_message")
    }

    @Test func theTextLimitCountsCharactersAndIsInclusive() {
        let atLimit = GroupPost.transition(family, message(String(repeating: "é", count: 5)), maxCharacters: 5, now: 1)
        #expect(atLimit.count == 2 && atLimit.last == .reply(SentAt(sentAt: 1)))
        #expect(GroupPost.transition(family, message(String(repeating: "é", count: 6)), maxCharacters: 5, now: 1)
            == [.refuse(.text(.tooLong(count: 6, limit: 5)))])
        #expect(GroupPost.transition(family, message(" \n\t"), maxCharacters: 5, now: 1) == [.refuse(.text(.empty))])
    }

    @Test func contentIsCheckedBeforeTheGroupAndTheGroupBeforeMembership() {
        // A bad text or name is refused as such even for a group that does not exist, from a non-member.
        #expect(GroupPost.transition(missing, message("", from: "eve"), maxCharacters: 5, now: 1) == [.refuse(.text(.empty))])
        #expect(GroupPost.transition(missing, .event(from: "eve", name: "", payload: nil), maxCharacters: 5, now: 1) == [.refuse(.invalidName)])
        #expect(GroupPost.transition(missing, message("hi", from: "eve"), maxCharacters: 5, now: 1) == [.refuse(.groupNotFound(groupId: "g9"))])
        #expect(GroupPost.transition(family, message("hi", from: "eve"), maxCharacters: 5, now: 1) == [.refuse(.notAMember)])
        #expect(GroupPost.transition(family, .event(from: "eve", name: "x", payload: nil), maxCharacters: 5, now: 1) == [.refuse(.notAMember)])
        // The content check alone, as the hub runs it before loading the group.
        #expect(GroupPost.checkContent(message(" hi "), maxCharacters: 5) == .success(message("hi")))
        #expect(GroupPost.checkContent(message("toolong"), maxCharacters: 5) == .failure(.text(.tooLong(count: 7, limit: 5))))
    }

    @Test func eventsComeFromAMemberOrTheBackend() {
        let payload = JSONValue.object(["album": .string("summer")])
        let fromAnn = GroupPost.transition(family, .event(from: "ann", name: "album_updated", payload: payload), maxCharacters: 5, now: 7)
        let data = GroupEventData(groupId: "g1", from: ann, name: "album_updated", payload: payload, sentAt: 7)
        #expect(fromAnn == [.commitEvent(data, logs: ["ann", "bob", "cid"]), .reply(SentAt(sentAt: 7))])
        // The backend is no member and needs none; the event names no sender.
        let backend = GroupPost.State(groupId: "g1", activeMembers: ["ann", "bob"], sender: nil)
        let fromBackend = GroupPost.transition(backend, .event(from: nil, name: "album_updated", payload: nil), maxCharacters: 5, now: 8)
        #expect(fromBackend == [.commitEvent(GroupEventData(groupId: "g1", from: nil, name: "album_updated", payload: nil, sentAt: 8),
                                             logs: ["ann", "bob"]), .reply(SentAt(sentAt: 8))])
        #expect(GroupPost.transition(GroupPost.State(groupId: "g9", activeMembers: nil, sender: nil), .event(from: nil, name: "x", payload: nil),
                                     maxCharacters: 5, now: 8) == [.refuse(.groupNotFound(groupId: "g9"))])
        #expect(GroupPost.Event.event.rawValue == "group_event")
    }

    @Test func eventNamesHaveOneTo64CharactersWithoutControlCharacters() {
        for name in [String(repeating: "n", count: 64), "a", "photo added ✓"] {
            #expect(GroupPost.checkContent(.event(from: nil, name: name, payload: nil), maxCharacters: 5) == .success(.event(from: nil, name: name, payload: nil)))
        }
        for name in ["", String(repeating: "n", count: 65), "bad\u{7}name", "line\nbreak"] {
            #expect(GroupPost.checkContent(.event(from: nil, name: name, payload: nil), maxCharacters: 5) == .failure(.invalidName))
        }
    }

    @Test func refusalsHaveTheDocumentedWireErrors() {
        #expect(GatewayError(GroupPost.Refusal.text(.empty)).code == .textEmpty)
        #expect(GatewayError(GroupPost.Refusal.text(.tooLong(count: 501, limit: 500))).message == "text has 501 characters; the limit is 500")
        #expect(GatewayError(GroupPost.Refusal.invalidName).code == .invalidField)
        #expect(GatewayError(GroupPost.Refusal.groupNotFound(groupId: "g9")).message == "no group \"g9\"")
        #expect(GatewayError(GroupPost.Refusal.groupNotFound(groupId: "g9")).code == .groupNotFound)
        #expect(GatewayError(GroupPost.Refusal.notAMember).code == .notAMember)
    }
}
