import Gateway
import Testing

@Suite struct PushPolicyTests {
    /// A user's device registers tokens over the protocol, then goes offline.
    func offlinePhone(_ f: HubFixture, tokens: [String]) -> FakeClient {
        let phone = f.connect("u1", "phone", "ios")
        for (i, json) in tokens.enumerated() { f.command(phone, #"{"id":"t\#(i)","type":"push_register",\#(json)}"#) }
        for i in tokens.indices { #expect(phone.reply("t\(i)")?["ok"] as? Bool == true) }
        f.hub.disconnect(phone)
        return phone
    }

    func jobs(_ f: HubFixture) throws -> [PushJobRecord] { try f.store.duePushJobs(now: .max, limit: 100) }

    @Test func anOfflineDeviceGetsAnAlertForAnApprovalAndAnOnlineOneNothing() throws {
        let f = try HubFixture()
        let session = f.session("u1")
        let phone = f.connect("u1", "phone", "ios")
        f.command(phone, #"{"id":"t","type":"push_register","kind":"apns","token":"aa11","environment":"sandbox"}"#)
        let first = f.approval(session: session)
        #expect(try jobs(f).isEmpty)  // connected: the socket carries it, until its deadline
        f.hub.disconnect(phone)  // unacknowledged and the socket gone: pushed now
        #expect(try jobs(f).map(\.notice.collapseID) == [first.requestId])
        let approval = f.approval(session: session)
        #expect(try jobs(f).count == 2)
        let job = try #require(try jobs(f).last)
        #expect(job.target == PushTarget(provider: "apns", token: "aa11", kind: "alert", environment: "sandbox"))
        #expect(job.notice.collapseID == approval.requestId)
        #expect(job.notice.expiresAt == approval.expiresAt)
        #expect(job.notice.badge == 2)
        #expect(job.notice.genericTitle == "Approval needed")
        #expect(job.notice.showDetails == false)
        #expect(job.notice.timeSensitive == true)
        #expect(job.notice.deepLinkPath == "session/\(session)/approval/\(approval.requestId)")
    }

    @Test func liveActivityTokensArePreferredWithAnAlertAsFallback() throws {
        let f = try HubFixture()
        let session = f.session("u1")
        _ = offlinePhone(
            f,
            tokens: [
                #""kind":"apns","token":"alert-tok""#,
                #""kind":"liveActivityUpdate","token":"la-tok","sessionId":"\#(session)""#
            ])
        _ = f.approval(session: session)
        let job = try #require(try jobs(f).first)
        #expect(job.target.kind == "liveActivityUpdate")
        #expect(job.target.token == "la-tok")
        #expect(job.fallback?.kind == "alert")
        #expect(job.fallback?.token == "alert-tok")
        // The provider said the Live Activity token is invalid: it is forgotten, the next request goes as an alert.
        f.hub.forgetPushToken(DeviceKey(userId: "u1", deviceId: "phone"), target: job.target)
        _ = f.approval(session: session)
        #expect(try jobs(f).last?.target.kind == "alert")
    }

    @Test func pushToStartIsUsedOnlyWhenLiveActivitiesAreOn() throws {
        let f = try HubFixture()
        let session = f.session("u1")
        let phone = offlinePhone(f, tokens: [#""kind":"apns","token":"a""#, #""kind":"liveActivityStart","token":"s""#])
        _ = f.approval(session: session)
        #expect(try jobs(f).last?.target.kind == "liveActivityStart")
        f.hub.connect(phone, resumeAfter: nil)
        f.command(phone, #"{"id":"s","type":"set_notification_settings","liveActivities":false,"showDetails":true}"#)
        #expect((phone.reply("s")?["result"] as? [String: Any])?["showDetails"] as? Bool == true)
        f.hub.disconnect(phone)
        _ = f.approval(session: session)
        let last = try #require(try jobs(f).last)
        #expect(last.target.kind == "alert")
        #expect(last.notice.showDetails == true)
    }

    @Test func messagesToAnOfflineUserBecomeAlertsWithTheSendersName() throws {
        let f = try HubFixture()
        f.contacts("u1", "bob")
        f.hub.upsertUser(id: "bob", displayName: "Bob") { _ in }
        _ = offlinePhone(f, tokens: [#""kind":"fcm","token":"fcm-1""#])
        let bob = f.connect("bob", "b1")
        f.command(bob, #"{"id":"m","type":"send_message","to":"u1","text":"the key is sk-live-123"}"#)
        let job = try #require(try jobs(f).first)
        #expect(job.target == PushTarget(provider: "fcm", token: "fcm-1", kind: "alert"))
        #expect(job.notice.genericTitle == "New message")
        #expect(job.notice.title == "Bob")
        #expect(job.notice.body == "the key is sk-live-123")  // redaction happens when the push is rendered
        #expect(job.notice.showDetails == false)
        #expect(job.notice.deepLinkPath == "chat/bob")
        #expect(try jobs(f).count == 1)  // bob is connected: his own copy is not pushed
    }

    @Test func aHandoffTellsTheOfflinePreviousDeviceAndEndsItsLiveActivity() throws {
        let f = try HubFixture()
        let session = f.session("u1")
        let phone = f.connect("u1", "phone", "ios")
        f.command(phone, #"{"id":"1","type":"push_register","kind":"apns","token":"p-apns"}"#)
        f.command(
            phone,
            #"{"id":"2","type":"push_register","kind":"liveActivityUpdate","token":"p-la","sessionId":"\#(session)"}"#)
        f.command(phone, #"{"id":"3","type":"session_attach","sessionId":"\#(session)"}"#)
        f.hub.disconnect(phone)
        let desktop = f.connect("u1", "desk", "desktop")
        f.command(desktop, #"{"id":"4","type":"session_attach","sessionId":"\#(session)"}"#)
        let kinds = try jobs(f).filter { $0.deviceId == "phone" }.map(\.target.kind)
        #expect(kinds == ["background", "liveActivityEnd"])
        #expect(try jobs(f).first?.notice.ids["sessionId"] == session)
    }

    @Test func badRegistrationsGetPreciseErrors() throws {
        let f = try HubFixture()
        let c = f.connect("u1", "d")
        f.command(c, #"{"id":"1","type":"push_register","kind":"pager","token":"x"}"#)
        #expect(c.errorCode("1") == "invalid_field")
        f.command(c, #"{"id":"2","type":"push_register","kind":"liveActivityUpdate","token":"x"}"#)
        #expect(c.errorCode("2") == "missing_field")
        f.command(c, #"{"id":"3","type":"push_register","kind":"apns","token":"x","environment":"staging"}"#)
        #expect(c.errorCode("3") == "invalid_field")
        f.command(c, #"{"id":"4","type":"push_register","kind":"apns","token":""}"#)
        #expect(c.errorCode("4") == "invalid_field")
    }

    @Test func tokensAndSettingsSurviveARestart() throws {
        let store = InMemoryGatewayStore()
        let f = try HubFixture(store: store)
        let session = f.session("u1")
        _ = offlinePhone(f, tokens: [#""kind":"apns","token":"kept""#])
        let second = try HubFixture(store: store)
        _ = second.approval(session: session)
        let ids = try store.duePushJobs(now: .max, limit: 10).map(\.id)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count)  // job ids keep increasing after the restart
        #expect(try store.duePushJobs(now: .max, limit: 10).last?.target.token == "kept")
    }
}

@Suite struct ApprovalAcknowledgementTests {
    @Test func anUnacknowledgedApprovalGoesToPushAfterTheDelay() throws {
        let f = try HubFixture()
        let session = f.session("u1")
        let phone = f.connect("u1", "phone", "ios")
        f.command(phone, #"{"id":"t","type":"push_register","kind":"apns","token":"p"}"#)
        let approval = f.approval(session: session)
        #expect(try f.store.duePushJobs(now: .max, limit: 10).isEmpty)  // connected: the socket carries it
        f.scheduler.advance(by: 4_999)
        #expect(try f.store.duePushJobs(now: .max, limit: 10).isEmpty)
        f.scheduler.advance(by: 1)  // 5 s and nobody acknowledged it
        let job = try #require(try f.store.duePushJobs(now: .max, limit: 10).first)
        #expect(job.notice.collapseID == approval.requestId)
        #expect(job.target.kind == "alert")
    }

    @Test func anAcknowledgedOrAnsweredApprovalIsNotPushed() throws {
        let f = try HubFixture()
        let session = f.session("u1")
        let phone = f.connect("u1", "phone", "ios")
        f.command(phone, #"{"id":"t","type":"push_register","kind":"apns","token":"p"}"#)
        _ = f.approval(session: session)
        let offset = try #require(phone.events("approval_request").first?["offset"] as? Int64)
        f.command(phone, #"{"id":"a","type":"ack","offset":\#(offset)}"#)
        f.scheduler.advance(by: 10_000)
        #expect(try f.store.duePushJobs(now: .max, limit: 10).isEmpty)
        let second = f.approval(session: session)
        f.command(phone, #"{"id":"b","type":"approve","requestId":"\#(second.requestId)"}"#)
        f.scheduler.advance(by: 10_000)
        #expect(try f.store.duePushJobs(now: .max, limit: 10).isEmpty)
    }
}

@Suite struct OptInPushTests {
    /// bob (offline, with an FCM token) watches alice's presence.
    func watcher(_ f: HubFixture, presence: Bool, contacts: Bool) -> FakeClient {
        f.contacts("alice", "bob")
        let bob = f.connect("bob", "bob-phone", "android")
        f.command(bob, #"{"id":"t","type":"push_register","kind":"fcm","token":"bob-fcm"}"#)
        f.command(
            bob,
            #"{"id":"s","type":"set_notification_settings","presenceUpdates":\#(presence),"contactUpdates":\#(contacts)}"#
        )
        f.hub.disconnect(bob)
        f.scheduler.advance(by: 10_000)  // past bob's own grace period
        return bob
    }

    func jobs(_ f: HubFixture) throws -> [PushJobRecord] { try f.store.duePushJobs(now: .max, limit: 100) }

    @Test func presencePushesAreOptInAndCoalescedToOnePerMinute() throws {
        let f = try HubFixture()
        _ = watcher(f, presence: true, contacts: false)
        let alice = f.connect("alice", "a1")  // online: first push goes out at once
        f.scheduler.advance(by: 0)
        #expect(try jobs(f).map(\.notice.ids["userIds"]) == ["alice"])
        f.hub.disconnect(alice)
        f.scheduler.advance(by: 6_000)  // offline after the grace period
        _ = f.connect("alice", "a1")
        f.scheduler.advance(by: 1_000)
        #expect(try jobs(f).count == 1)  // within the minute: held back
        f.scheduler.advance(by: 60_000)
        let all = try jobs(f)
        #expect(all.count == 2)  // one coalesced push for both changes
        #expect(all.last?.target.kind == "background")
        #expect(all.last?.notice.collapseID == "presence")
    }

    @Test func withoutOptInThereAreNoPresenceOrContactPushes() throws {
        let f = try HubFixture()
        _ = watcher(f, presence: false, contacts: false)
        _ = f.connect("alice", "a1")
        f.scheduler.advance(by: 120_000)
        f.hub.upsertUser(id: "carol", displayName: nil) { _ in }
        f.contacts("bob", "carol")
        #expect(try jobs(f).isEmpty)
    }

    @Test func contactChangesArePushedWhenOptedIn() throws {
        let f = try HubFixture()
        _ = watcher(f, presence: false, contacts: true)
        f.hub.upsertUser(id: "carol", displayName: nil) { _ in }
        f.contacts("bob", "carol")
        let job = try #require(try jobs(f).first)
        #expect(job.notice.type == "contact_added")
        #expect(job.target == PushTarget(provider: "fcm", token: "bob-fcm", kind: "background"))
    }
}
