/// A reader's read marks as a pure state machine. The mark on a peer is the newest message id from that peer the
/// reader has read; the peer's messages to the reader above it are unread (`unread_counts`). A mark never moves
/// backwards: marking at or below it changes nothing.
///
/// Two devices (or two nodes) may mark at once, so the mark itself is the store's: `setReadMark` keeps the larger id
/// in the write (SQLite `max`, PostgreSQL `GREATEST`, the reference store `advance`), and the counting is the store's
/// query (the reference store runs `unreadCounts`; `StoreScript` holds the SQL stores to the same answers). The hub
/// reads no mark before it writes one (it passes an empty `State`), so it commits every mark and the store keeps the
/// larger. No threads, clock or store.
struct ReadMarks {
    /// The reader's marks as far as they are known: peer → newest message id read (no mark counts as 0).
    struct State: Equatable {
        var marks: [String: Int64] = [:]
    }

    enum Input: Equatable {
        /// The reader has read every message from `peer` up to `upTo`; `newest` is the newest message id between the
        /// two (either direction, 0 when none) as the store has it now.
        case markRead(peer: String, upTo: Int64, newest: Int64)
    }

    enum Action: Equatable {
        /// Commit `setReadMark` for the reader on `peer` (the store keeps the larger of its mark and `upTo`).
        case commitMark(peer: String, upTo: Int64)
        /// Answer `{}` (after the commit, when there is one).
        case reply
        /// Answer `invalid_field`: `upTo` is negative or beyond the newest message. A mark never moves back, so a
        /// mark past the conversation's end (a `sentAt` in milliseconds passed as an id) would hide every later
        /// message from the unread counts for good.
        case refuse(newest: Int64)
    }

    static func transition(_ state: State, _ input: Input) -> (State, [Action]) {
        switch input {
        case .markRead(let peer, let upTo, let newest):
            guard upTo >= 0, upTo <= newest else { return (state, [.refuse(newest: newest)]) }
            if let mark = state.marks[peer], upTo <= mark { return (state, [.reply]) }
            var next = state
            next.marks[peer] = advance(state.marks[peer], to: upTo)
            return (next, [.commitMark(peer: peer, upTo: upTo), .reply])
        }
    }

    /// The mark after marking `upTo`: never below where it was.
    static func advance(_ mark: Int64?, to upTo: Int64) -> Int64 {
        max(mark ?? 0, upTo)
    }

    /// Unread messages of `reader` per sender: those to the reader above the reader's mark on their sender (peers
    /// with none unread are absent).
    static func unreadCounts(of reader: String, in messages: some Sequence<MessageRecord>, marks: [String: Int64]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for m in messages where m.to == reader && m.id > (marks[m.from] ?? 0) {
            counts[m.from, default: 0] += 1
        }
        return counts
    }
}
