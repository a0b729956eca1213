import GatewayProtocol

/// One `history` page as a pure state machine: `idle --ask--> reading(page) --rows--> answered` (or `idle --ask-->
/// answered` with a refusal). A page is the direct messages between the reader and one peer (both directions) with
/// ids below `before` (all when nil), newest first, at most `limit`; the next page asks with `before` set to the
/// oldest id of this one. No threads, clock or store: the hub reads the rows off the hub thread and feeds them back
/// (a failed read is the hub's `storage_failed`).
struct HistoryPaging {
    /// The page the hub is to read.
    struct Page: Equatable {
        var reader: String
        var peer: String
        var before: Int64?
        var limit: Int
    }

    enum State: Equatable {
        case idle
        case reading(Page)
        case answered
    }

    enum Input: Equatable {
        /// `limit` nil: the default page (50, or the maximum when that is lower).
        case ask(reader: String, peer: String, before: Int64?, limit: Int?)
        /// The store's rows for the page, newest first, and the display names of the reader and the peer (a user
        /// without one is absent).
        case rows([MessageRecord], displayNames: [String: String])
    }

    enum Refusal: Error, Equatable {
        case limitOutOfRange(maximum: Int)
    }

    enum Action: Equatable {
        /// Read the page from the store; its rows come back as `rows`.
        case read(Page)
        case reply(HistoryPage)
        case refuse(Refusal)
    }

    static let defaultLimit = 50

    /// `maxLimit`: `GatewaySettings.historyPageLimit`. Inputs out of order change nothing.
    static func transition(_ state: State, _ input: Input, maxLimit: Int) -> (State, [Action]) {
        switch (state, input) {
        case (.idle, .ask(let reader, let peer, let before, let asked)):
            let limit = asked ?? min(defaultLimit, maxLimit)
            guard limit >= 1, limit <= maxLimit else {
                return (.answered, [.refuse(.limitOutOfRange(maximum: maxLimit))])
            }
            let page = Page(reader: reader, peer: peer, before: before, limit: limit)
            return (.reading(page), [.read(page)])
        case (.reading(let page), .rows(let rows, let names)):
            let messages = rows.map {
                MessageData(messageId: $0.id, from: $0.from, to: $0.to, text: $0.text, sentAt: $0.sentAt, fromDisplayName: names[$0.from])
            }
            // A full page may have more behind it (the next page may then be empty); a short one is the last.
            return (.answered, [.reply(HistoryPage(messages: messages, hasMore: rows.count == page.limit))])
        default:
            return (state, [])
        }
    }
}

/// The `history` answer: messages newest first.
struct HistoryPage: Encodable, Equatable {
    var messages: [MessageData]
    var hasMore: Bool
}

extension GatewayError {
    /// The wire error for a refused page.
    init(_ refusal: HistoryPaging.Refusal) {
        switch refusal {
        case .limitOutOfRange(let maximum): self.init(.invalidField, "limit must be between 1 and \(maximum)")
        }
    }
}
