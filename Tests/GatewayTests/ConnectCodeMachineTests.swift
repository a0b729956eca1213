@testable import Gateway
import GatewayProtocol
import Testing

/// `ConnectCodeMachine` alone: which code is current, issuing and revoking, and what a claim means.
@Suite struct ConnectCodeMachineTests {
    let code = ConnectCodeRecord(code: "123456", userId: "ann", createdAt: 1_000, expiresAt: 11_000)

    @Test func theCurrentCodeStaysUntilRegeneratedOrExpired() {
        #expect(ConnectCodeMachine.current(code, regenerate: false, now: 10_999) == code)
        #expect(ConnectCodeMachine.current(code, regenerate: false, now: 11_000) == nil)
        #expect(ConnectCodeMachine.current(code, regenerate: true, now: 2_000) == nil)
        #expect(ConnectCodeMachine.current(nil, regenerate: false, now: 2_000) == nil)
        let permanent = ConnectCodeRecord(code: "123456", userId: "ann", createdAt: 1_000)
        #expect(ConnectCodeMachine.current(permanent, regenerate: false, now: .max) == permanent)
    }

    @Test func aRetiredCodeReturnsToThePoolOnlyAfterItsQuarantine() {
        let week: Int64 = 7 * 86_400_000
        #expect(ConnectCodeMachine.isFree(nil, now: 5, quarantineMs: week))
        // Live: never free, however old.
        #expect(!ConnectCodeMachine.isFree(ConnectCodeRecord(code: "123456", userId: "ann", createdAt: 1), now: .max / 2, quarantineMs: week))
        var revoked = ConnectCodeRecord(code: "123456", userId: "ann", createdAt: 1)
        revoked.revokedAt = 1_000
        #expect(!ConnectCodeMachine.isFree(revoked, now: 1_000 + week - 1, quarantineMs: week))
        #expect(ConnectCodeMachine.isFree(revoked, now: 1_000 + week, quarantineMs: week))
        // Expired by its lifetime (`code` expires at 11 000): the quarantine runs from the expiry.
        #expect(!ConnectCodeMachine.isFree(code, now: 11_000 + week - 1, quarantineMs: week))
        #expect(ConnectCodeMachine.isFree(code, now: 11_000 + week, quarantineMs: week))
    }

    @Test func issuingRevokesThePreviousCode() {
        let (new, revoked) = ConnectCodeMachine.issue(code: "654321", to: "ann", replacing: code, lifetimeMs: 60_000, now: 5_000)
        #expect(new == ConnectCodeRecord(code: "654321", userId: "ann", createdAt: 5_000, expiresAt: 65_000))
        #expect(revoked?.code == "123456" && revoked?.revokedAt == 5_000)
        let first = ConnectCodeMachine.issue(code: "654321", to: "ann", replacing: nil, lifetimeMs: nil, now: 5_000)
        #expect(first.new.expiresAt == nil && first.revoked == nil)
    }

    @Test func aClaimConnectsWithTheOwnerOfALiveCode() {
        #expect(ConnectCodeMachine.claim("123-456", record: code, by: "bob", now: 2_000) == .success("ann"))
        #expect(ConnectCodeMachine.normalise(" 12 34-56") == "123456")
    }

    @Test func wrongAndStaleCodesAreGuessesOwnCodesAreNot() {
        let bad = ConnectCodeMachine.claim("12345a", record: code, by: "bob", now: 2_000)
        #expect(bad == .failure(.invalid("12345a")))
        #expect(ConnectCodeMachine.claim("999999", record: nil, by: "bob", now: 2_000) == .failure(.invalid("999999")))
        #expect(ConnectCodeMachine.claim("123456", record: code, by: "bob", now: 11_000) == .failure(.expired))
        var revoked = code
        revoked.revokedAt = 1_500
        #expect(ConnectCodeMachine.claim("123456", record: revoked, by: "bob", now: 2_000) == .failure(.expired))
        #expect(ConnectCodeMachine.claim("123456", record: code, by: "ann", now: 2_000) == .failure(.ownCode))
        #expect(ConnectCodeMachine.Refusal.invalid("x").countsAsGuess && ConnectCodeMachine.Refusal.expired.countsAsGuess)
        #expect(!ConnectCodeMachine.Refusal.ownCode.countsAsGuess && !ConnectCodeMachine.Refusal.alreadyFriends.countsAsGuess)
        #expect(GatewayError(ConnectCodeMachine.Refusal.expired).code == .connectCodeExpired)
    }
}
