@testable import Gateway
import GatewayProtocol
import Testing

/// `ReadMarks` alone: marks only move forward, what a mark commits, and what counts as unread.
@Suite struct ReadMarksTests {
    @Test func withoutAKnownMarkEveryMarkIsCommittedForTheStoreToKeepTheLarger() {
        // The hub's case: it holds no marks.
        let (next, actions) = ReadMarks.transition(ReadMarks.State(), .markRead(peer: "bob", upTo: 7, newest: 100))
        #expect(next.marks == ["bob": 7])
        #expect(actions == [.commitMark(peer: "bob", upTo: 7), .reply])
    }

    @Test func aMarkNeverMovesBackwards() {
        let state = ReadMarks.State(marks: ["bob": 10])
        for upTo: Int64 in [10, 9, 0] {
            #expect(ReadMarks.transition(state, .markRead(peer: "bob", upTo: upTo, newest: 100)) == (state, [.reply]))
        }
        let (forward, actions) = ReadMarks.transition(state, .markRead(peer: "bob", upTo: 11, newest: 100))
        #expect(forward.marks == ["bob": 11] && actions == [.commitMark(peer: "bob", upTo: 11), .reply])
        // Another peer's mark is its own.
        #expect(ReadMarks.transition(state, .markRead(peer: "cid", upTo: 3, newest: 100)).0.marks == ["bob": 10, "cid": 3])
    }

    @Test func aMarkBeyondTheNewestMessageOrBelowZeroIsRefusedAndChangesNothing() {
        let state = ReadMarks.State(marks: ["bob": 10])
        // A `sentAt` in milliseconds passed as an id, the largest id, a negative one: none may become the mark.
        for upTo: Int64 in [1_764_000_000_000, 21, .max, -1, .min] {
            #expect(ReadMarks.transition(state, .markRead(peer: "bob", upTo: upTo, newest: 20)) == (state, [.refuse(newest: 20)]))
        }
        // No message yet: only 0 is a mark.
        #expect(ReadMarks.transition(ReadMarks.State(), .markRead(peer: "bob", upTo: 1, newest: 0)).1 == [.refuse(newest: 0)])
        #expect(ReadMarks.transition(ReadMarks.State(), .markRead(peer: "bob", upTo: 0, newest: 0)).1 == [.commitMark(peer: "bob", upTo: 0), .reply])
        // The newest message itself is a mark.
        #expect(ReadMarks.transition(state, .markRead(peer: "bob", upTo: 20, newest: 20)).1 == [.commitMark(peer: "bob", upTo: 20), .reply])
    }

    @Test func marksInAnyOrderEndAtTheLargest() {
        for order: [Int64] in [[3, 9, 5], [9, 5, 3], [5, 3, 9]] {
            var state = ReadMarks.State()
            for upTo in order { state = ReadMarks.transition(state, .markRead(peer: "bob", upTo: upTo, newest: 100)).0 }
            #expect(state.marks["bob"] == 9)
            #expect(order.reduce(nil as Int64?) { ReadMarks.advance($0, to: $1) } == 9)   // the stores' rule
        }
        #expect(ReadMarks.advance(nil, to: -1) == 0 && ReadMarks.advance(4, to: 2) == 4)
    }

    @Test func unreadAreTheMessagesToTheReaderAboveItsMarkOnTheirSender() {
        let messages = [
            MessageRecord(id: 1, from: "bob", to: "ann", text: "a", sentAt: 1),
            MessageRecord(id: 2, from: "ann", to: "bob", text: "b", sentAt: 2),   // the reader's own
            MessageRecord(id: 3, from: "bob", to: "ann", text: "c", sentAt: 3),
            MessageRecord(id: 4, from: "cid", to: "ann", text: "d", sentAt: 4),
            MessageRecord(id: 5, from: "bob", to: "cid", text: "e", sentAt: 5),   // not to the reader
        ]
        #expect(ReadMarks.unreadCounts(of: "ann", in: messages, marks: [:]) == ["bob": 2, "cid": 1])
        #expect(ReadMarks.unreadCounts(of: "ann", in: messages, marks: ["bob": 1]) == ["bob": 1, "cid": 1])
        // Read up to the newest: the sender is absent, not 0.
        #expect(ReadMarks.unreadCounts(of: "ann", in: messages, marks: ["bob": 3, "cid": 4]) == [:])
        #expect(ReadMarks.unreadCounts(of: "bob", in: messages, marks: [:]) == ["ann": 1])
    }
}
