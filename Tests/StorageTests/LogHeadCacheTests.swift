import Dispatch
import Foundation
import Gateway
import Testing
@testable import Storage

/// The SQLite writer takes each log's next offset from what it last stored (`LogHeadCache`) instead of probing the
/// log: offsets must stay gap-free and unique through rolled-back batches, failed transactions and other connections
/// writing the same file.
@Suite struct LogHeadCacheTests {
    /// Commits `batches` as one job (one transaction, each batch in its savepoint) and returns each batch's offsets,
    /// or nil for a batch that failed.
    func commitJob(_ store: SQLiteGatewayStore, _ batches: [[StoreWrite]]) -> [[Int64]?] {
        let recorder = Recorder<[Result<StoreReceipt, Error>]>()
        store.commit(batches: batches) { recorder.record($0) }
        return recorder.wait(for: 1)[0].map { try? $0.get().offsets }
    }

    func claim(_ key: String) -> StoreWrite {
        .claimIdempotency(scope: "message:u", key: key, response: [1], requestHash: "h", createdAt: 1)
    }

    @Test func aBatchRolledBackToItsSavepointGivesItsOffsetsBack() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        #expect(commitJob(store, [[event("u", 0), claim("taken")]]) == [[1]])
        // In one transaction: the middle batch appends twice to u, then loses its claim and is rolled back alone.
        let offsets = commitJob(store, [[event("u", 0)], [event("u", 0), event("u", 0), claim("taken")], [event("u", 0), event("v", 0)]])
        #expect(offsets == [[2], nil, [3, 1]])
        // The failing batch last in its transaction: the commit must not keep its offsets either.
        #expect(commitJob(store, [[event("u", 0)], [event("u", 0), claim("taken")]]) == [[4], nil])
        #expect(commitJob(store, [[event("u", 0)]]) == [[5]])
        #expect(try store.events(userId: "u", after: 0, limit: 10).map(\.offset) == [1, 2, 3, 4, 5])
    }

    @Test func anotherConnectionsAppendsAreSeenBeforeTheNextOffsetIsTaken() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try openStore(path)
        defer { store.close() }
        #expect(commitJob(store, [[event("u", 0)]]) == [[1]])
        // A second process on the file (as a second node or a tool would be) appends to the same log.
        let other = try openStore(path)
        #expect(commitJob(other, [[event("u", 0)], [event("u", 0)]]) == [[2], [3]])
        other.close()
        #expect(commitJob(store, [[event("u", 0)]]) == [[4]])
        #expect(try store.events(userId: "u", after: 0, limit: 10).map(\.offset) == [1, 2, 3, 4])
    }

    @Test func aPrunedLogContinuesAboveItsHead() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        #expect(commitJob(store, [[event("u", 0, createdAt: 1)], [event("u", 0, createdAt: 1)]]) == [[1], [2]])
        #expect(try store.pruneEvents(before: 10, keepLatest: 0) == 2)
        #expect(commitJob(store, [[event("u", 0)]]) == [[3]])
    }

    @Test func theLayersFollowTheTransaction() {
        let heads = LogHeadCache(capacity: 2)
        heads.batchBegan()
        heads.noteLatest("a", 5)
        #expect(heads.latest("a") == 5)
        heads.batchRolledBack()
        #expect(heads.latest("a") == nil)                    // never stored
        heads.batchBegan()
        heads.noteLatest("a", 5)
        heads.batchReleased()
        heads.transactionDropped()
        #expect(heads.latest("a") == nil)                    // the transaction did not commit
        heads.batchBegan()
        heads.noteLatest("a", 5)
        heads.noteLatest("b", 7)
        heads.transactionCommitted()                         // an unreleased batch's offsets commit with it
        #expect(heads.latest("a") == 5 && heads.latest("b") == 7 && heads.count == 2)
        heads.noteLatest("c", 1)
        heads.transactionCommitted()                         // past the capacity: starts over with what just committed
        #expect(heads.count == 1 && heads.latest("c") == 1 && heads.latest("a") == nil)
        heads.forgetAll()
        #expect(heads.latest("c") == nil)
    }
}
