import Gateway
import Testing

/// Each socket's and each user's share of the pending-command pool, and the sockets per user.
@Suite struct CommandSharesTests {
    final class Socket {}

    /// The shares behind a reference, so `#expect` can take their mutating calls.
    final class Ledger {
        var shares: CommandShares
        init(perConnection: Int, perUser: Int, socketsPerUser: Int) {
            shares = CommandShares(limits: .init(perConnection: perConnection, perUser: perUser, socketsPerUser: socketsPerUser))
        }
        func open(_ socket: Socket, _ user: String) -> Bool { shares.open(ObjectIdentifier(socket), user: user) }
        func admit(_ socket: Socket) -> CommandShares.Refusal? { shares.admit(ObjectIdentifier(socket)) }
        func answered(_ socket: Socket) { shares.answered(ObjectIdentifier(socket)) }
        func close(_ socket: Socket) { shares.close(ObjectIdentifier(socket)) }
    }

    @Test func aSocketAndAUserAreRefusedAtTheirSharesAndAnswersGiveRoomBack() {
        let ledger = Ledger(perConnection: 2, perUser: 3, socketsPerUser: 5)
        let (a1, a2, b1) = (Socket(), Socket(), Socket())
        #expect(ledger.open(a1, "alice") && ledger.open(a2, "alice") && ledger.open(b1, "bob"))
        #expect(ledger.admit(a1) == nil)
        #expect(ledger.admit(a1) == nil)
        #expect(ledger.admit(a1) == .connection(limit: 2))
        #expect(ledger.admit(a2) == nil)
        #expect(ledger.admit(a2) == .user(limit: 3))
        #expect(ledger.shares.pending(of: "alice") == 3)
        // Bob is not touched by alice's shares.
        #expect(ledger.admit(b1) == nil)
        ledger.answered(a1)
        #expect(ledger.admit(a2) == nil)
        #expect(ledger.shares.pending(of: "alice") == 3)
    }

    @Test func aClosedSocketGivesBackItsPendingCommandsAndALateAnswerChangesNothing() {
        let ledger = Ledger(perConnection: 4, perUser: 4, socketsPerUser: 5)
        let (a1, a2) = (Socket(), Socket())
        #expect(ledger.open(a1, "alice") && ledger.open(a2, "alice"))
        for _ in 0..<3 { #expect(ledger.admit(a1) == nil) }
        #expect(ledger.admit(a2) == nil)
        ledger.close(a1)
        #expect(ledger.shares.pending(of: "alice") == 1 && ledger.shares.sockets(of: "alice") == 1)
        ledger.answered(a1)             // the hub answers a command of the gone socket
        #expect(ledger.shares.pending(of: "alice") == 1)
        ledger.answered(a2)
        ledger.close(a2)
        #expect(ledger.shares.pending(of: "alice") == 0 && ledger.shares.sockets(of: "alice") == 0)
    }

    @Test func socketsPerUserAreCappedAndAClosedOneMakesRoom() {
        let ledger = Ledger(perConnection: 1, perUser: 1, socketsPerUser: 2)
        let sockets = (0..<4).map { _ in Socket() }
        #expect(ledger.open(sockets[0], "carol") && ledger.open(sockets[1], "carol"))
        #expect(!ledger.shares.hasRoomForSocket(of: "carol"))
        #expect(!ledger.open(sockets[2], "carol"))
        #expect(ledger.open(sockets[2], "dave"))
        ledger.close(sockets[0])
        #expect(ledger.open(sockets[3], "carol"))
        #expect(ledger.shares.sockets(of: "carol") == 2)
    }
}
