@testable import Gateway
import GatewayProtocol
import Testing

/// `DirectMessage` alone: the send rules and what an accepted message commits.
@Suite struct DirectMessageTests {
    let friends = DirectMessage.Relation(areContacts: true, paused: false)

    @Test func textIsTrimmedAndCheckedBeforeTheRelation() {
        #expect(DirectMessage.check(text: "  hi \n", relation: friends, maxCharacters: 5) == .success("hi"))
        #expect(DirectMessage.check(text: " \n\t", relation: .init(areContacts: false, paused: true), maxCharacters: 5) == .failure(.textEmpty))
        #expect(DirectMessage.check(text: "héllo!", relation: friends, maxCharacters: 5) == .failure(.textTooLong(count: 6, limit: 5)))
        #expect(DirectMessage.check(text: "👩‍💻👩‍💻", relation: friends, maxCharacters: 2) == .success("👩‍💻👩‍💻"))   // characters, not bytes
    }

    @Test func onlyUnpausedContactsMayBeMessaged() {
        #expect(DirectMessage.check(text: "hi", relation: .init(areContacts: false, paused: false), maxCharacters: 5) == .failure(.notAContact))
        #expect(DirectMessage.check(text: "hi", relation: .init(areContacts: true, paused: true), maxCharacters: 5) == .failure(.contactPaused))
        #expect(GatewayError(.notAContact).code == .notAContact)
        #expect(GatewayError(.contactPaused).code == .contactPaused)
    }

    @Test func aSendCommitsOneRowAndTheSameEventToTheRecipientThenTheSender() {
        let send = DirectMessage.send(id: 9, from: "ann", to: "bob", text: "hi", senderDisplayName: "Ann", now: 1_000)
        #expect(send.record == MessageRecord(id: 9, from: "ann", to: "bob", text: "hi", sentAt: 1_000))
        #expect(send.event == MessageData(messageId: 9, from: "ann", to: "bob", text: "hi", sentAt: 1_000, fromDisplayName: "Ann"))
        #expect(send.logs == ["bob", "ann"])
        #expect(send.reply == SentMessage(messageId: 9, sentAt: 1_000))
    }
}
