import Gateway
import GatewayProtocol
import Testing

/// The hub's side of a user's deletion and a device's revocation, on a manual clock: sockets closed with their
/// codes, approvals stopped (no timer left to fire), the other side's copies re-read, tokens refused afterwards.
@Suite struct LifecycleTests {
    @Test func deletingAUserClosesItsDevicesAndStopsItsApprovals() throws {
        let f = try HubFixture()
        let phone = f.connect("u1", "phone")
        let desk = f.connect("u1", "desk", "desktop")
        let friend = f.connect("u2", "phone")
        f.contacts("u1", "u2")
        let approval = f.approval(session: f.session("u1"))
        var polled: Result<ApprovalData?, GatewayError>?
        f.hub.waitForApproval(approval.requestId, waitMs: 30_000) { polled = $0 }
        #expect(f.hub.metrics.pendingApprovals.load(ordering: .relaxed) == 1)

        var result: Result<Void, GatewayError>?
        f.hub.deleteUser("u1") { result = $0 }
        #expect((try? result?.get()) != nil)
        #expect(phone.closed == GatewayCloseCode.accountDeleted && desk.closed == GatewayCloseCode.accountDeleted)
        #expect(friend.closed == nil)
        #expect(f.hub.metrics.pendingApprovals.load(ordering: .relaxed) == 0)
        #expect(f.hub.contactIds(of: "u2").isEmpty)
        #expect(f.hub.user("u1") == nil)

        // Its approval never times out, and the long-poll ends with nothing to show.
        f.scheduler.advance(by: 61_000)
        #expect(phone.events("approval_timeout").isEmpty && friend.events("approval_timeout").isEmpty)
        #expect(f.hub.metrics.approvalsTimedOut.load(ordering: .relaxed) == 0)
        #expect(polled.map { (try? $0.get()) == .some(nil) } == true)

        // A token of the user (this fake's carries no `iat`) is refused; nothing of the user is created again.
        let again = f.connect("u1", "phone")
        #expect(again.closed == GatewayCloseCode.accountDeleted && again.events("welcome").isEmpty)
        #expect(f.hub.user("u1") == nil)
        var second: Result<Void, GatewayError>?
        f.hub.deleteUser("u1") { second = $0 }
        guard case .failure(let error)? = second else { Issue.record("a second deletion succeeded"); return }
        #expect(error.code == .userNotFound)
    }

    @Test func revokingADeviceClosesItAloneAndRefusesItFromThenOn() throws {
        let f = try HubFixture()
        let phone = f.connect("u1", "phone")
        let desk = f.connect("u1", "desk", "desktop")
        var missing: Result<Void, GatewayError>?
        f.hub.revokeDevice(userId: "u1", deviceId: "tablet") { missing = $0 }
        guard case .failure(let error)? = missing else { Issue.record("an unknown device was revoked"); return }
        #expect(error.code == .notFound)

        var result: Result<Void, GatewayError>?
        f.hub.revokeDevice(userId: "u1", deviceId: "phone") { result = $0 }
        #expect((try? result?.get()) != nil)
        #expect(phone.closed == GatewayCloseCode.deviceRevoked && desk.closed == nil)
        #expect(f.connect("u1", "phone").closed == GatewayCloseCode.deviceRevoked)
        #expect(f.connect("u1", "desk").events("welcome").count == 1)
        #expect(f.hub.revocation(refusing: "u1", deviceId: "phone", issuedAt: f.scheduler.now() / 1000 + 1) == nil)
        #expect(
            f.hub.revocation(refusing: "u1", deviceId: "phone", issuedAt: f.scheduler.now() / 1000 - 1)?.deviceId
                == "phone")
    }
}
