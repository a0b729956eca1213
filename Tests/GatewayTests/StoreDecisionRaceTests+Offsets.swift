@testable import Gateway
import GatewayProtocol
import Synchronization
import Testing

/// Offsets are the store's: another node's append between the hub's batch and its commit costs nothing (no retry),
/// a failed batch leaves no hole, and the hub delivers and answers with the offsets the store's receipt names.
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

    @Test func anotherNodesAppendInBetweenCostsNoRetryAndTheStoresOffsetsAreAnswered() throws {
        let start = try latest()
        let first = publish("first")
        let second = publish("second")
        #expect(store.pending.count == 2)
        // The other node appends to Ann's log after the hub made its batches: the store gives them the next offsets.
        let theirs = StoredEvent(userId: "ann", offset: 0, type: "custom", payload: Self.payload("other-node"), createdAt: 1)
        store.inner.write([.appendEvent(theirs)]) { #expect($0 == nil) }
        let batches = store.inner.committedBatches
        store.flushInRounds()
        #expect(store.inner.committedBatches == batches + 2)   // each batch committed once: nothing retried
        #expect(first() == .success(start + 2))
        #expect(second() == .success(start + 3))
        #expect(try log(["other-node", "first", "second"]) == [start + 1: "other-node", start + 2: "first", start + 3: "second"])
        #expect(hub.latestOffsets["ann"] == start + 3)
    }

    @Test func anIdempotentPublishStoresTheOffsetTheStoreGaveItsEvent() throws {
        let start = try latest()
        let theirs = StoredEvent(userId: "ann", offset: 0, type: "custom", payload: Self.payload("other-node"), createdAt: 1)
        let first = publish("keyed", key: "k2")
        store.inner.write([.appendEvent(theirs)]) { #expect($0 == nil) }
        store.flushInRounds()
        #expect(first() == .success(start + 2))
        let stored = try #require(try store.inner.idempotentResponse(scope: "publish:ann", key: "k2"))
        #expect(stored.response == ServerFrames.encode(PublishResult(offset: start + 2)))
        // A retry under the key is answered from the store's record: the same offset, nothing appended.
        let retry = publish("keyed", key: "k2")
        store.flushInRounds()
        #expect(retry() == .success(start + 2))
        #expect(try latest() == start + 2)
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
        // "next" takes the log's next offset: the refused batch left no hole.
        #expect(next() == .success(start + 1))
        #expect(try log(["refused", "next"]) == [start + 1: "next"])
        let after = publish("after")
        store.flushInRounds()
        #expect(after() == .success(start + 2))
        #expect(try log(["refused", "next", "after"]) == [start + 1: "next", start + 2: "after"])
    }
}
