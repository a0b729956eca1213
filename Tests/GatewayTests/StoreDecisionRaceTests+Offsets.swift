@testable import Gateway
import GatewayProtocol
import Synchronization
import Testing

/// The hub's offsets after a failed batch, with the store taking only a log's next offset: no hole is left, a lost
/// offset is retried ahead of the batches made after it, and the hub's memory of the log ends where the store's does.
/// `DeferredStore.flushInRounds` hands the batches over as the SQL stores' writer takes them (one job per round).
extension StoreDecisionRaceTests {
    func publish(_ name: String, key: String? = nil) -> (() -> Result<Int64, GatewayError>?) {
        var result: Result<Int64, GatewayError>?
        hub.publish(userId: "ann", name: name, payload: nil, idempotencyKey: key) { result = $0 }
        return { result }
    }

    /// Ann's log: each offset with the event's name (nil for an event that is not one of `names`).
    func log(_ names: [String]) throws -> [Int64: String?] {
        var log: [Int64: String?] = [:]
        for event in try store.inner.events(userId: "ann", after: 0, limit: 100) {
            log[event.offset] = names.first { event.payload == Self.payload($0) }
        }
        return log
    }

    static func payload(_ name: String) -> [UInt8] { ServerFrames.encode(CustomEventData(name: name, payload: nil)) }

    func latest() throws -> Int64 { try store.inner.loadSnapshot().latestOffsets["ann"] ?? 0 }

    @Test func anOffsetLostToAnotherNodeIsRetriedAheadOfTheNextAppend() throws {
        let start = try latest()
        let first = publish("first")
        let second = publish("second")
        #expect(store.pending.count == 2)
        // The other node takes the offset the hub gave "first"; "second"'s offset is then the log's next one, but it
        // must not commit ahead of "first".
        let theirs = StoredEvent(userId: "ann", offset: start + 1, type: "custom",
                                 payload: Self.payload("other-node"), createdAt: 1)
        store.inner.write([.appendEvent(theirs)]) { #expect($0 == nil) }
        store.flushInRounds()
        #expect(first() == .success(start + 2))
        #expect(second() == .success(start + 3))
        #expect(try log(["other-node", "first", "second"]) == [start + 1: "other-node", start + 2: "first", start + 3: "second"])
        // The hub's memory agrees with the store: the next append fits at once.
        let third = publish("third")
        #expect(store.pending.first?.contains(where: { if case .appendEvent(let e) = $0 { e.offset == start + 4 } else { false } }) == true)
        store.flushInRounds()
        #expect(third() == .success(start + 4))
    }

    @Test func aBatchThatFailsLeavesNoHoleForALaterAppendToFill() throws {
        let start = try latest()
        let refused = publish("refused", key: "k1")
        let next = publish("next")
        // The other node used the idempotency key for another request: the first batch fails for good.
        store.inner.write([.claimIdempotency(scope: "publish:ann", key: "k1", response: ServerFrames.encode(PublishResult(offset: 99)),
                                             requestHash: "another-request", createdAt: 1)]) { #expect($0 == nil) }
        store.flushInRounds()
        if case .failure(let error)? = refused() { #expect(error.code == .idempotencyKeyReused) } else { Issue.record("expected a refusal") }
        // "next" takes the offset "refused" gave back: the log has no hole.
        #expect(next() == .success(start + 1))
        #expect(try log(["refused", "next"]) == [start + 1: "next"])
        let after = publish("after")
        store.flushInRounds()
        #expect(after() == .success(start + 2))
        #expect(try log(["refused", "next", "after"]) == [start + 1: "next", start + 2: "after"])
    }
}
