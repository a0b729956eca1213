import Gateway
import Testing

@Suite struct SessionAndPresenceTests {
    @Test func aDesktopTakingOverTellsThePhoneToLetGo() throws {
        let f = try HubFixture()
        let phone = f.connect("u1", "phone", "ios")
        let desktop = f.connect("u1", "desk", "desktop")
        let session = f.session("u1")
        f.command(phone, #"{"id":"1","type":"session_attach","sessionId":"\#(session)"}"#)
        #expect(phone.events("session_handoff").isEmpty)
        f.command(desktop, #"{"id":"2","type":"session_attach","sessionId":"\#(session)"}"#)
        let handoff = phone.events("session_handoff")
        #expect(handoff.count == 1)
        #expect((data(handoff[0])["handedOffTo"] as? [String: Any])?["deviceId"] as? String == "desk")
        #expect((data(handoff[0])["previous"] as? [String: Any])?["deviceId"] as? String == "phone")
        #expect(f.hub.session(session)?.activeClient?.clientType == "desktop")
        f.command(desktop, #"{"id":"3","type":"session_attach","sessionId":"\#(session)"}"#)
        #expect(phone.events("session_handoff").count == 1)   // re-attaching the active device is no handoff
        f.command(phone, #"{"id":"4","type":"session_attach","sessionId":"nope"}"#)
        #expect(phone.errorCode("4") == "session_not_found")
    }

    @Test func presenceGoesToContactsOnlyAndWaitsOutTheGracePeriod() throws {
        let f = try HubFixture()
        f.contacts("alice", "bob")
        f.hub.upsertUser(id: "mallory", displayName: nil) { _ in }
        let bob = f.connect("bob", "b1")
        let mallory = f.connect("mallory", "m1")
        let alice = f.connect("alice", "a1")
        #expect(bob.events("presence").last.map { data($0)["status"] as? String } == "online")
        #expect(mallory.events("presence").isEmpty)

        f.hub.disconnect(alice)
        f.scheduler.advance(by: 4_000)
        let reconnected = f.connect("alice", "a1")   // within the 5 s grace: no offline flicker
        f.scheduler.advance(by: 10_000)
        #expect(!bob.events("presence").contains { data($0)["status"] as? String == "offline" })

        f.command(reconnected, #"{"id":"away","type":"set_presence","status":"away"}"#)
        #expect(bob.events("presence").last.map { data($0)["status"] as? String } == "away")
        f.hub.disconnect(reconnected)
        f.scheduler.advance(by: 4_999)
        #expect(bob.events("presence").last.map { data($0)["status"] as? String } == "away")
        f.scheduler.advance(by: 1)
        let last = try #require(bob.events("presence").last)
        #expect(data(last)["status"] as? String == "offline")
        #expect(data(last)["lastSeenAt"] as? Int64 == f.scheduler.now())
        f.command(bob, #"{"id":"p","type":"presence"}"#)
        let contacts = (bob.reply("p")?["result"] as? [String: Any])?["contacts"] as? [[String: Any]]
        #expect(contacts?.count == 1)
        #expect(contacts?.first?["status"] as? String == "offline")
        #expect(mallory.events("presence").isEmpty)
    }
}
