import Gateway
import GatewayProtocol
import Testing

/// Pausing contacts, and groups with their fan-out, on the manual clock.
@Suite struct PauseAndGroupTests {
    @Test func pauseStopsPresenceMessagesAndEventsBothWaysAndResumeRestoresThem() throws {
        let f = try HubFixture()
        f.contacts("alice", "bob")
        let alice = f.connect("alice", "a1")
        let bob = f.connect("bob", "b1")
        f.command(alice, #"{"id":"1","type":"contact_pause","userId":"bob"}"#)
        #expect((alice.reply("1")?["result"] as? [String: Any])?["pausedByMe"] as? Bool == true)
        let told = try #require(bob.events("contact_paused").first)
        #expect(told["offset"] != nil)
        #expect(data(told)["by"] as? String == "alice")
        #expect((data(told)["user"] as? [String: Any])?["userId"] as? String == "alice")
        // Messages and pings are refused in both directions.
        f.command(bob, #"{"id":"2","type":"send_message","to":"alice","text":"hey"}"#)
        #expect(bob.errorCode("2") == "contact_paused")
        f.command(alice, #"{"id":"3","type":"send_event","to":"bob","name":"ping"}"#)
        #expect(alice.errorCode("3") == "contact_paused")
        // Presence does not flow either way, and is not listed.
        bob.clear(); alice.clear()
        f.command(bob, #"{"id":"4","type":"set_presence","status":"away"}"#)
        f.command(alice, #"{"id":"5","type":"set_presence","status":"away"}"#)
        #expect(alice.events("presence").isEmpty && bob.events("presence").isEmpty)
        f.command(alice, #"{"id":"6","type":"presence"}"#)
        #expect(((alice.reply("6")?["result"] as? [String: Any])?["contacts"] as? [Any])?.isEmpty == true)
        // Only the pauser can lift its pause; bob's resume changes nothing.
        f.command(bob, #"{"id":"7","type":"contact_resume","userId":"alice"}"#)
        #expect((bob.reply("7")?["result"] as? [String: Any])?["paused"] as? Bool == true)
        f.command(alice, #"{"id":"8","type":"contact_resume","userId":"bob"}"#)
        #expect(bob.events("contact_resumed").map { data($0)["paused"] as? Bool } == [false])
        #expect(alice.events("presence").contains { data($0)["userId"] as? String == "bob" && data($0)["status"] as? String == "away" })
        f.command(bob, #"{"id":"9","type":"send_event","to":"alice","name":"ping","payload":{"n":1}}"#)
        #expect(bob.reply("9")?["ok"] as? Bool == true)
        let ping = try #require(alice.events("contact_event").first)
        #expect((data(ping)["from"] as? [String: Any])?["userId"] as? String == "bob")
        #expect((data(ping)["payload"] as? [String: Any])?["n"] as? Int64 == 1)
    }

    @Test func bothSidesPausingNeedsBothToResume() throws {
        let f = try HubFixture()
        f.contacts("alice", "bob")
        var states: [ContactStateData] = []
        f.hub.pauseContact(userId: "alice", contactId: "bob") { states.append(try! $0.get()) }
        f.hub.pauseContact(userId: "bob", contactId: "alice") { states.append(try! $0.get()) }
        f.hub.resumeContact(userId: "alice", contactId: "bob") { states.append(try! $0.get()) }
        #expect(states.last?.paused == true && states.last?.pausedByThem == true && states.last?.pausedByMe == false)
        var error: GatewayError?
        f.hub.pauseContact(userId: "alice", contactId: "carol") { if case .failure(let e) = $0 { error = e } }
        #expect(error?.code == .notAContact)
        // Removing clears pauses: a later reconnection starts unpaused.
        f.hub.removeContact("alice", "bob") { _ in }
        f.hub.addContact("alice", "bob") { _ in }
        #expect(f.hub.contactList(of: "alice").first?.paused == false)
    }

    @Test func groupEventsAndMessagesFanOutToActiveMembersOnly() throws {
        let f = try HubFixture()
        for id in ["olga", "pete", "quin", "rosa"] { f.hub.upsertUser(id: id, displayName: id == "olga" ? "Olga" : nil) { _ in } }
        var group: GroupData?
        f.hub.createGroup(ownerId: "olga", .init(name: "Family", kind: "family", maxMembers: 3, roleLimits: ["parent": 1])) { group = try? $0.get() }
        let groupId = try #require(group?.groupId)
        #expect(group?.members.map(\.role) == ["owner"])
        var results: [GatewayErrorCode?] = []
        let record: (Result<GroupData, GatewayError>) -> Void = { results.append($0.failure?.code) }
        f.hub.addGroupMember(groupId: groupId, userId: "pete", role: "parent", completion: record)
        f.hub.addGroupMember(groupId: groupId, userId: "quin", role: "parent", completion: record)   // role limit
        f.hub.addGroupMember(groupId: groupId, userId: "quin", role: "child", completion: record)
        f.hub.addGroupMember(groupId: groupId, userId: "rosa", role: "child", completion: record)    // size limit
        f.hub.addGroupMember(groupId: groupId, userId: "pete", role: nil, completion: record)
        #expect(results == [nil, .groupFull, nil, .groupFull, .alreadyMember])
        let olga = f.connect("olga", "o1")
        let pete = f.connect("pete", "p1")
        let quin = f.connect("quin", "q1")
        f.command(quin, #"{"id":"l","type":"group_leave","groupId":"\#(groupId)"}"#)
        #expect(olga.events("group_member_left").count == 1 && quin.events("group_member_left").count == 1)
        f.command(olga, #"{"id":"1","type":"group_send_message","groupId":"\#(groupId)","text":"  dinner at 7 ","clientMessageId":"g1"}"#)
        f.command(olga, #"{"id":"2","type":"group_send_message","groupId":"\#(groupId)","text":"dinner at 7","clientMessageId":"g1"}"#)
        #expect(pete.events("group_message").map { data($0)["text"] as? String } == ["dinner at 7"])
        #expect(olga.events("group_message").count == 1)
        #expect(quin.events("group_message").isEmpty)
        let from = (pete.events("group_message").first.map(data)?["from"] as? [String: Any])
        #expect(from?["name"] as? String == "Olga")
        f.command(olga, #"{"id":"3","type":"group_send_message","groupId":"\#(groupId)","text":"   "}"#)
        #expect(olga.errorCode("3") == "text_empty")
        f.command(olga, #"{"id":"4","type":"group_send_message","groupId":"\#(groupId)","text":"\#(String(repeating: "x", count: 501))"}"#)
        #expect(olga.errorCode("4") == "text_too_long")
        f.command(quin, #"{"id":"5","type":"send_event","groupId":"\#(groupId)","name":"ping"}"#)
        #expect(quin.errorCode("5") == "group_not_found")   // a former member sees the group as missing
        f.command(pete, #"{"id":"6","type":"send_event","groupId":"\#(groupId)","name":"ping"}"#)
        #expect(olga.events("group_event").count == 1 && pete.events("group_event").count == 1)
        f.hub.sendGroupEvent(from: nil, groupId: groupId, name: "album_updated", payload: nil) { _ in }
        #expect(olga.events("group_event").count == 2)
        f.command(pete, #"{"id":"7","type":"group_remove_member","groupId":"\#(groupId)","userId":"olga"}"#)
        #expect(pete.errorCode("7") == "forbidden")
        f.command(olga, #"{"id":"8","type":"group_leave","groupId":"\#(groupId)"}"#)
        #expect(olga.errorCode("8") == "forbidden")
        f.command(quin, #"{"id":"9","type":"group_get","groupId":"\#(groupId)"}"#)
        #expect(quin.errorCode("9") == "group_not_found")
        f.command(pete, #"{"id":"10","type":"group_list"}"#)
        #expect(((pete.reply("10")?["result"] as? [String: Any])?["groups"] as? [[String: Any]])?.count == 1)
    }
}

extension Result {
    var failure: Failure? { if case .failure(let e) = self { e } else { nil } }
}
