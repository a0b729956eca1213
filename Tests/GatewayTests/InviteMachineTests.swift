@testable import Gateway
import GatewayProtocol
import Testing

/// `InviteMachine` alone: redeemed once, before its expiry, by a non-member; another node's redemption and a failed
/// join as inputs.
@Suite struct InviteMachineTests {
    let invite = InviteRecord(code: "ABCD2345", groupId: "g1", inviterId: "ann", recipient: nil, role: "member",
                              createdAt: 1_000, expiresAt: 10_000)

    @Test func aRedeemUsesTheInviteAndJoins() {
        let (used, actions) = InviteMachine.transition(invite, .redeem(by: "bob", isMember: false, inviterIsMember: true), now: 5_000)
        #expect(used.state == .used && used.usedBy == "bob" && used.usedAt == 5_000)
        #expect(actions == [.join(used)])
    }

    @Test func aSecondRedeemIsRefusedAsUsedAndSoIsARevokedInvite() {
        let (used, _) = InviteMachine.transition(invite, .redeem(by: "bob", isMember: false, inviterIsMember: true), now: 5_000)
        #expect(InviteMachine.transition(used, .redeem(by: "cid", isMember: false, inviterIsMember: true), now: 5_001) == (used, [.refuse(.used)]))
        var revoked = invite
        revoked.state = .revoked
        #expect(InviteMachine.transition(revoked, .redeem(by: "cid", isMember: false, inviterIsMember: true), now: 5_001).1 == [.refuse(.used)])
    }

    @Test func anExpiredInviteAndAMemberAreRefusedAndTheInviteStaysPending() {
        #expect(InviteMachine.transition(invite, .redeem(by: "bob", isMember: false, inviterIsMember: true), now: 10_000) == (invite, [.refuse(.expired(at: 10_000))]))
        #expect(InviteMachine.transition(invite, .redeem(by: "bob", isMember: true, inviterIsMember: true), now: 9_999) == (invite, [.refuse(.alreadyMember)]))
    }

    @Test func anInviteWhoseInviterIsNoLongerAMemberIsRefusedForEveryoneAndStaysPending() {
        for redeemer in ["ann", "bob"] {   // the removed inviter herself, and anyone else
            #expect(InviteMachine.transition(invite, .redeem(by: redeemer, isMember: false, inviterIsMember: false), now: 5_000)
                    == (invite, [.refuse(.inviterGone)]))
        }
        #expect(GatewayError(InviteMachine.Refusal.inviterGone).code == .inviteRevoked)
    }

    @Test func anotherNodeRedeemedFirstTheStoresInviteReplacesOurs() {
        let (ours, _) = InviteMachine.transition(invite, .redeem(by: "bob", isMember: false, inviterIsMember: true), now: 5_000)
        var theirs = invite
        theirs.state = .used
        theirs.usedBy = "cid"
        theirs.usedAt = 4_000
        #expect(InviteMachine.transition(ours, .storeRedeemed(theirs), now: 5_001) == (theirs, [.refuse(.used)]))
        #expect(InviteMachine.transition(ours, .storeRedeemed(nil), now: 5_001) == (invite, [.refuse(.used)]))
    }

    @Test func aFailedJoinLeavesTheInvitePendingAgain() {
        let (ours, _) = InviteMachine.transition(invite, .redeem(by: "bob", isMember: false, inviterIsMember: true), now: 5_000)
        #expect(InviteMachine.transition(ours, .joinFailed, now: 5_001) == (invite, []))
        #expect(GatewayError(InviteMachine.Refusal.expired(at: 10_000)).code == .inviteExpired)
    }
}
