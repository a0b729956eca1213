@testable import Gateway
import Testing

/// The acknowledgement deadline wired into the hub (`DeliveryDeadlines`), on a manual clock: an alert a device with
/// a socket does not acknowledge within `push_ack_delay_ms` is pushed to exactly that device; one acknowledged in
/// time never is; `app_state background` pushes at once and counts as away.
@Suite struct DeliveryDeadlineTests {
    /// u1 with a phone (and optionally a tablet) connected, each with an APNs token; bob, a contact, connected.
    struct Setup {
        let f: HubFixture
        let phone: FakeClient
        let tablet: FakeClient?
        let bob: FakeClient

        init(tablet withTablet: Bool = false, delayMs: Int64 = 1_000) throws {
            var settings = GatewaySettings()
            settings.pushAckDelayMs = delayMs
            settings.approvalPushDelayMs = delayMs
            f = try HubFixture(settings: settings)
            f.contacts("u1", "bob")
            phone = f.connect("u1", "phone")
            f.command(phone, #"{"id":"t","type":"push_register","kind":"apns","token":"phone-tok"}"#)
            if withTablet {
                let tablet = f.connect("u1", "tablet")
                f.command(tablet, #"{"id":"t","type":"push_register","kind":"apns","token":"tablet-tok"}"#)
                self.tablet = tablet
            } else {
                tablet = nil
            }
            bob = f.connect("bob", "bob-phone")
        }

        /// bob writes to u1; returns the offset the phone received it at.
        @discardableResult
        func message(_ text: String = "hi") throws -> Int64 {
            phone.clear()
            f.command(bob, #"{"id":"m","type":"send_message","to":"u1","text":"\#(text)"}"#)
            return try #require(phone.events("message").last?["offset"] as? Int64)
        }

        func ack(_ client: FakeClient, _ offset: Int64) {
            f.command(client, #"{"id":"a","type":"ack","offset":\#(offset)}"#)
            #expect(client.reply("a")?["ok"] as? Bool == true)
        }

        func jobs() throws -> [PushJobRecord] { try f.store.duePushJobs(now: .max, limit: 100) }
    }

    @Test func aMessageNotAcknowledgedWithinTheDelayIsPushedAndOneAcknowledgedIsNot() throws {
        let s = try Setup()
        try s.message("first")
        s.f.scheduler.advance(by: 999)
        #expect(try s.jobs().isEmpty)
        s.f.scheduler.advance(by: 1)
        let job = try #require(try s.jobs().first)
        #expect(job.deviceId == "phone" && job.target.token == "phone-tok" && job.notice.type == "message")

        let offset = try s.message("second")
        s.ack(s.phone, offset)
        s.f.scheduler.advance(by: 5_000)
        #expect(try s.jobs().count == 1)
        #expect(s.f.hub.deadlines.waitingCount == 0)
    }

    @Test func withTwoDevicesOnlyTheOneThatDidNotAcknowledgeIsPushed() throws {
        let s = try Setup(tablet: true)
        let offset = try s.message()
        s.ack(s.phone, offset)
        s.f.scheduler.advance(by: 1_000)
        let jobs = try s.jobs()
        #expect(jobs.map(\.deviceId) == ["tablet"])
        #expect(jobs.map(\.target.token) == ["tablet-tok"])
    }

    @Test func anApprovalFollowsTheSameDeadlineAndADecidedOneIsWithdrawn() throws {
        let s = try Setup()
        let session = s.f.session("u1")
        let first = s.f.approval(session: session)
        s.f.scheduler.advance(by: 1_000)
        #expect(try s.jobs().map(\.notice.collapseID) == [first.requestId])
        let second = s.f.approval(session: session)
        s.f.command(s.phone, #"{"id":"d","type":"deny","requestId":"\#(second.requestId)"}"#)
        s.f.scheduler.advance(by: 5_000)
        #expect(try s.jobs().map(\.notice.collapseID) == [first.requestId])
        #expect(s.f.hub.deadlines.waitingCount == 0)
    }

    @Test func backgroundPushesAtOnceAndCountsAsAwayUntilForeground() throws {
        let s = try Setup()
        try s.message("waiting")
        s.f.command(s.phone, #"{"id":"b","type":"app_state","state":"background"}"#)
        #expect(s.phone.reply("b")?["ok"] as? Bool == true)
        #expect(try s.jobs().map(\.deviceId) == ["phone"])  // the waiting one, without the delay
        #expect(s.f.hub.presenceData(of: "u1").status == "away")
        try s.message("while in background")
        #expect(try s.jobs().count == 2)  // pushed at commit

        s.f.command(s.phone, #"{"id":"f","type":"app_state","state":"foreground"}"#)
        #expect(s.f.hub.presenceData(of: "u1").status == "online")
        let offset = try s.message("back")
        #expect(try s.jobs().count == 2)  // waits again
        s.ack(s.phone, offset)
        s.f.scheduler.advance(by: 5_000)
        #expect(try s.jobs().count == 2)

        s.f.command(s.phone, #"{"id":"x","type":"app_state","state":"asleep"}"#)
        #expect(s.phone.errorCode("x") == "invalid_field")
    }

    @Test func losingTheSocketPushesWhatWaitsAndADeviceWithoutOneIsPushedAtOnce() throws {
        let s = try Setup(tablet: true)
        s.f.hub.disconnect(s.tablet!)
        try s.message()
        #expect(try s.jobs().map(\.deviceId) == ["tablet"])  // no socket: at commit
        s.f.hub.disconnect(s.phone)
        #expect(try s.jobs().map(\.deviceId) == ["tablet", "phone"])  // its socket went: no need to wait
        s.f.scheduler.advance(by: 5_000)
        #expect(try s.jobs().count == 2)  // and not again at the deadline
    }

    @Test func theSendersOwnCopyIsNeverPushed() throws {
        let s = try Setup()
        s.f.command(s.bob, #"{"id":"t","type":"push_register","kind":"apns","token":"bob-tok"}"#)
        try s.message()
        s.ack(s.phone, try #require(s.phone.events("message").last?["offset"] as? Int64))
        s.f.scheduler.advance(by: 5_000)
        #expect(try s.jobs().isEmpty)
    }
}
