@testable import Gateway
import GatewayProtocol
import Testing

/// `HistoryPaging` alone: the page limit and its default, what a page reads and answers, and walking pages to the end.
@Suite struct HistoryPagingTests {
    func ask(limit: Int?, before: Int64? = nil) -> HistoryPaging.Input {
        .ask(reader: "ann", peer: "bob", before: before, limit: limit)
    }

    func row(_ id: Int64) -> MessageRecord {
        id % 2 == 0 ? MessageRecord(id: id, from: "ann", to: "bob", text: "m\(id)", sentAt: id * 10)
            : MessageRecord(id: id, from: "bob", to: "ann", text: "m\(id)", sentAt: id * 10)
    }

    @Test func theDefaultPageIs50OrTheMaximumWhenThatIsLower() {
        let (reading, actions) = HistoryPaging.transition(.idle, ask(limit: nil), maxLimit: 100)
        let page = HistoryPaging.Page(reader: "ann", peer: "bob", before: nil, limit: 50)
        #expect(reading == .reading(page) && actions == [.read(page)])
        #expect(HistoryPaging.transition(.idle, ask(limit: nil), maxLimit: 20).1 == [.read(.init(reader: "ann", peer: "bob", before: nil, limit: 20))])
    }

    @Test func aLimitOutside1ToTheMaximumIsRefused() {
        for limit in [1, 100] {
            #expect(HistoryPaging.transition(.idle, ask(limit: limit, before: 7), maxLimit: 100).1
                == [.read(.init(reader: "ann", peer: "bob", before: 7, limit: limit))])
        }
        for limit in [0, -1, 101, Int.max] {
            #expect(HistoryPaging.transition(.idle, ask(limit: limit), maxLimit: 100) == (.answered, [.refuse(.limitOutOfRange(maximum: 100))]))
        }
        let error = GatewayError(HistoryPaging.Refusal.limitOutOfRange(maximum: 100))
        #expect(error.code == .invalidField && error.message == "limit must be between 1 and 100")
    }

    @Test func aFullPageSaysThereMayBeMoreAndAShortOneIsTheLast() {
        let reading = HistoryPaging.State.reading(.init(reader: "ann", peer: "bob", before: nil, limit: 2))
        let names = ["ann": "Ann"]   // bob has no display name
        let (answered, full) = HistoryPaging.transition(reading, .rows([row(4), row(3)], displayNames: names), maxLimit: 100)
        #expect(answered == .answered)
        #expect(full == [.reply(HistoryPage(messages: [
            MessageData(messageId: 4, from: "ann", to: "bob", text: "m4", sentAt: 40, fromDisplayName: "Ann"),
            MessageData(messageId: 3, from: "bob", to: "ann", text: "m3", sentAt: 30, fromDisplayName: nil),
        ], hasMore: true))])
        #expect(HistoryPaging.transition(reading, .rows([row(1)], displayNames: names), maxLimit: 100).1
            == [.reply(HistoryPage(messages: [MessageData(messageId: 1, from: "bob", to: "ann", text: "m1", sentAt: 10, fromDisplayName: nil)], hasMore: false))])
        #expect(HistoryPaging.transition(reading, .rows([], displayNames: names), maxLimit: 100).1 == [.reply(HistoryPage(messages: [], hasMore: false))])
    }

    @Test func inputsOutOfOrderChangeNothing() {
        let reading = HistoryPaging.State.reading(.init(reader: "ann", peer: "bob", before: nil, limit: 2))
        #expect(HistoryPaging.transition(.idle, .rows([row(1)], displayNames: [:]), maxLimit: 100) == (.idle, []))
        #expect(HistoryPaging.transition(reading, ask(limit: 5), maxLimit: 100) == (reading, []))
        #expect(HistoryPaging.transition(.answered, .rows([row(1)], displayNames: [:]), maxLimit: 100) == (.answered, []))
        #expect(HistoryPaging.transition(.answered, ask(limit: 5), maxLimit: 100) == (.answered, []))
    }

    /// Pages walked with `before` = the oldest id of the previous page, over rows read as the stores read them
    /// (ids below `before`, newest first, at most `limit`).
    func walk(_ ids: [Int64], limit: Int) -> [[Int64]] {
        var pages: [[Int64]] = []
        var before: Int64?
        while true {
            let (reading, read) = HistoryPaging.transition(.idle, ask(limit: limit, before: before), maxLimit: 100)
            guard case .read(let page)? = read.first else { Issue.record("no read: \(read)"); return pages }
            let rows = ids.filter { $0 < (page.before ?? .max) }.sorted(by: >).prefix(page.limit).map(row)
            guard case .reply(let answer)? = HistoryPaging.transition(reading, .rows(Array(rows), displayNames: [:]), maxLimit: 100).1.first else {
                Issue.record("no reply"); return pages
            }
            pages.append(answer.messages.map(\.messageId))
            guard answer.hasMore, let oldest = answer.messages.last?.messageId else { return pages }
            before = oldest
        }
    }

    @Test func walkingPagesReturnsEveryMessageOnceNewestFirst() {
        let ids: [Int64] = [1, 2, 3, 5, 8]
        #expect(walk(ids, limit: 2) == [[8, 5], [3, 2], [1]])
        // A count that is a multiple of the limit ends with an empty page.
        #expect(walk(ids, limit: 5) == [[8, 5, 3, 2, 1], []])
        #expect(walk(ids, limit: 100) == [[8, 5, 3, 2, 1]])
        #expect(walk([], limit: 1) == [[]])
    }
}
