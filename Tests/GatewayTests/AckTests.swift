import Gateway
import Testing

/// A device can only acknowledge what its user's log holds.
@Suite struct AckTests {
    @Test func anAckBeyondTheHeadOfTheLogIsRefusedAndDoesNotSuppressTheApprovalPush() throws {
        var settings = GatewaySettings()
        settings.approvalPushDelayMs = 5_000
        let f = try HubFixture(settings: settings)
        let session = f.session("u1")                                  // offset 1: session_created
        let phone = f.connect("u1", "phone", "ios")
        f.command(phone, #"{"id":"t","type":"push_register","kind":"apns","token":"aa11","environment":"sandbox"}"#)
        f.command(phone, #"{"id":"a","type":"ack","offset":1000}"#)
        #expect(phone.errorCode("a") == "invalid_field")
        f.command(phone, #"{"id":"n","type":"ack","offset":-1}"#)
        #expect(phone.errorCode("n") == "invalid_field")
        f.command(phone, #"{"id":"h","type":"ack","offset":1}"#)          // the head itself is fine
        #expect(phone.reply("h")?["ok"] as? Bool == true)

        _ = f.approval(session: session)                               // offset 2, not acknowledged by anyone
        #expect(try f.store.duePushJobs(now: .max, limit: 10).isEmpty)
        f.scheduler.advance(by: 5_000)
        let job = try #require(try f.store.duePushJobs(now: .max, limit: 10).first)
        #expect(job.notice.type == "approval_request")
    }
}
