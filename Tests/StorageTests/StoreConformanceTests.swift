import Gateway
import Testing
@testable import Storage

/// The SQLite store must answer the scripted operations exactly like the in-memory reference store.
@Suite struct StoreConformanceTests {
    @Test func sqliteMatchesInMemoryWithOneWritePerBatch() throws {
        let directory = try TemporaryDirectory()
        let sqlite = try openStore(directory.path())
        defer { sqlite.close() }
        let single: ([StoreWrite]) -> [[StoreWrite]] = { $0.map { [$0] } }
        let expected = try StoreScript.run(InMemoryGatewayStore(), split: single)
        let actual = try StoreScript.run(sqlite, split: single)
        expectSame(actual, expected)
    }

    @Test(arguments: [1, 2, 3, 42] as [UInt64])
    func sqliteMatchesInMemoryWithRandomBatches(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        // A tiny group limit too, so transactions end inside runs of queued batches.
        let sqlite = try openStore(directory.path(), maxBatchWrites: Int(seed % 7) + 3)
        defer { sqlite.close() }
        var rng = SeededGenerator(state: seed)
        let split: ([StoreWrite]) -> [[StoreWrite]] = { randomSplit($0, max: 12, using: &rng) }
        let expected = try StoreScript.run(InMemoryGatewayStore(), split: { [$0] })
        let actual = try StoreScript.run(sqlite, split: split)
        expectSame(actual, expected, "seed \(seed)")
    }

    @Test func reopeningTheFileKeepsEverything() throws {
        let directory = try TemporaryDirectory()
        let reference = InMemoryGatewayStore()
        _ = try StoreScript.run(reference, split: { [$0] })
        do {
            let sqlite = try openStore(directory.path())
            _ = try StoreScript.run(sqlite, split: { [$0] })
            sqlite.close()
        }
        let reopened = try openStore(directory.path())
        defer { reopened.close() }
        expectSame(try StoreScript.observe(reopened), try StoreScript.observe(reference))
        // Pruning emptied u2's log; its offset must survive the restart or offsets would start again at 1.
        #expect(try reopened.loadSnapshot().latestOffsets == ["u1": 31, "u2": 5, "u3": 1])
    }

    @Test func writesQueuedBeforeCloseAreCommittedAndLaterOnesFail() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        let recorder = Recorder<String?>()
        for offset in Int64(1)...200 { store.write([event("u", offset)]) { recorder.record($0.map { "\($0)" }) } }
        store.close()
        #expect(recorder.wait(for: 200).allSatisfy { $0 == nil })
        store.write([event("u", 201)]) { recorder.record($0.map { "\($0)" }) }
        let afterClose = recorder.wait(for: 201).last ?? nil
        #expect(afterClose?.contains("closed") == true)
        #expect(throws: StorageError.self) { try store.events(userId: "u", after: 0, limit: 1) }
        #expect(throws: StorageError.self) { try store.pruneEvents(before: 0, keepLatest: 0) }

        let reopened = try openStore(directory.path())
        defer { reopened.close() }
        #expect(try reopened.events(userId: "u", after: 0, limit: 1_000).map(\.offset) == Array(1...200))
    }

    @Test func closingFromACompletionDoesNotDeadlock() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        let recorder = Recorder<String?>()
        store.write([event("u", 1)]) { error in
            store.close()   // on the writer thread: must not wait for itself
            recorder.record(error.map { "\($0)" })
        }
        #expect(recorder.wait(for: 1) == [nil])
        store.write([event("u", 2)]) { recorder.record($0.map { "\($0)" }) }
        #expect(recorder.wait(for: 2).last??.contains("closed") == true)

        let reopened = try openStore(directory.path())
        defer { reopened.close() }
        #expect(try reopened.events(userId: "u", after: 0, limit: 10).map(\.offset) == [1])
    }
}

/// Compares observation by observation, so a failure names the first differing query instead of dumping all.
func expectSame(_ actual: [Observation], _ expected: [Observation], _ note: String = "",
                sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(actual.count == expected.count, sourceLocation: sourceLocation)
    for (index, (a, e)) in zip(actual, expected).enumerated() where a != e {
        Issue.record("observation \(index) differs \(note): \(a) != \(e)", sourceLocation: sourceLocation)
        return
    }
}
