import Dispatch
import Foundation
import Gateway
import Testing
@testable import Storage

/// The writer thread's grouping, ordering, failure isolation and throughput.
@Suite struct GroupCommitTests {
    /// A big first batch keeps the writer busy while the small ones queue up behind it, so grouping is certain.
    private func occupyWriter(_ store: SQLiteGatewayStore, events: Int = 20_000) -> Recorder<String?> {
        let recorder = Recorder<String?>()
        let writes = (1...events).map { event("blocker", Int64($0), payload: Array(repeating: 7, count: 64)) }
        store.write(writes) { recorder.record($0.map { "\($0)" }) }
        return recorder
    }

    @Test func batchesFromFourThreadsCompleteInSubmissionOrderAndShareCommits() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        let blocker = occupyWriter(store)
        let commitsBefore = store.commitCount
        let perThread = 500
        let recorder = Recorder<(thread: Int, offset: Int64, error: String?)>()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for offset in Int64(1)...Int64(perThread) {
                store.write([event("t\(thread)", offset)]) { error in
                    recorder.record((thread, offset, error.map { "\($0)" }))
                }
            }
        }
        let completed = recorder.wait(for: 4 * perThread)
        #expect(blocker.wait(for: 1) == [nil])
        #expect(completed.count == 4 * perThread)
        #expect(completed.allSatisfy { $0.error == nil })
        for thread in 0..<4 {
            let offsets = completed.filter { $0.thread == thread }.map(\.offset)
            #expect(offsets == Array(1...Int64(perThread)), "thread \(thread) completions out of order")
            #expect(try store.events(userId: "t\(thread)", after: 0, limit: 10_000).map(\.offset) == Array(1...Int64(perThread)))
        }
        let commits = store.commitCount - commitsBefore
        #expect(commits >= 1 && commits < 200, "2000 batches took \(commits) commits")
    }

    @Test func aTransactionNeverHoldsMoreThanMaxBatchWrites() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path(), maxBatchWrites: 10)
        defer { store.close() }
        let blocker = occupyWriter(store)   // larger than the limit: commits alone, never split
        let before = store.commitCount
        let results = commit(store, (1...100).map { [event("u", Int64($0))] })
        #expect(blocker.wait(for: 1) == [nil])
        #expect(results.allSatisfy { $0 == nil })
        // 100 single-write batches with a limit of 10 need at least 10 transactions, blocker aside.
        #expect(store.commitCount - before >= 10)
        #expect(try store.events(userId: "blocker", after: 0, limit: 30_000).count == 20_000)
    }

    @Test func aFailingBatchIsRolledBackAloneAndReportsItsError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try openStore(path)
        defer { store.close() }
        #expect(commit(store, [[event("u", 1)]]) == [nil])

        let blocker = occupyWriter(store)
        let recorder = Recorder<(name: String, error: Error?)>()
        let batches: [(String, [StoreWrite])] = [
            ("before", [event("u", 2), .upsertUser(UserRecord(id: "a", hexCode: "0000000a", createdAt: 1))]),
            // Message id 5 twice: the whole batch, user "b" and w's event included, must vanish.
            ("duplicate", [.upsertUser(UserRecord(id: "b", hexCode: "0000000b", createdAt: 1)), event("w", 1),
                           .insertMessage(MessageRecord(id: 5, from: "w", to: "u", text: "hi", sentAt: 1)),
                           .insertMessage(MessageRecord(id: 5, from: "w", to: "u", text: "hi", sentAt: 1))]),
            ("after", [event("u", 3), .upsertUser(UserRecord(id: "c", hexCode: "0000000c", createdAt: 1))]),
            // A hex code another user has: a constraint, reported as the store's error with its cause.
            ("hex", [.upsertUser(UserRecord(id: "d", hexCode: "0000000a", createdAt: 1))]),
        ]
        for (name, writes) in batches {
            store.write(writes) { recorder.record((name, $0)) }
        }
        let results = recorder.wait(for: 4)
        #expect(blocker.wait(for: 1) == [nil])
        #expect(results.map(\.name) == ["before", "duplicate", "after", "hex"])
        #expect(results[0].error == nil && results[2].error == nil)
        // A taken id is a lost decision: the store's answer names the highest id it holds.
        #expect(results[1].error as? StoreConflict == .idTaken(.message, latest: 5))
        let failure = try #require(results[3].error as? StorageError)
        #expect(failure.message.contains(path))
        #expect(failure.message.contains("UNIQUE constraint failed"))
        #expect(failure.message.contains("upsertUser d"))
        #expect(failure.sqliteCode.map { $0 & 0xFF } == 19)   // SQLITE_CONSTRAINT

        #expect(try store.events(userId: "u", after: 0, limit: 10).map(\.offset) == [1, 2, 3])
        #expect(try store.events(userId: "w", after: 0, limit: 10).isEmpty)
        #expect(try store.loadSnapshot().users.map(\.id) == ["a", "c"])
        // A later transaction commits normally.
        #expect(commit(store, [[event("u", 4)]]) == [nil])
        #expect(try store.loadSnapshot().latestOffsets["u"] == 4)
    }

    /// The hub's hand-off: many batches in one job, one completion with one result per batch, in order; a failing
    /// batch is isolated as if written alone, also when the job spans several transactions (`maxBatchWrites`).
    @Test(arguments: [5000, 3])
    func aJobOfBatchesGetsOneCompletionWithEachBatchsResult(maxBatchWrites: Int) throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path(), maxBatchWrites: maxBatchWrites)
        defer { store.close() }
        #expect(commit(store, [[event("u", 1)]]) == [nil])
        let recorder = Recorder<[Bool]>()
        store.write(batches: Self.mixedJob) { errors in recorder.record(errors.map { $0 == nil }) }
        #expect(recorder.wait(for: 1) == [[true, false, true, true]])
        #expect(try store.events(userId: "u", after: 0, limit: 10).map(\.offset) == [1, 2, 3])
        #expect(try store.events(userId: "v", after: 0, limit: 10).map(\.offset) == [1, 2, 3, 4])
        #expect(try store.events(userId: "w", after: 0, limit: 10).isEmpty)
    }

    /// Four batches; the second inserts message id 9 twice, so it must fail alone (its append to w with it).
    static let mixedJob: [[StoreWrite]] = [
        [event("u", 2), event("v", 1)],
        [event("w", 1), .insertMessage(MessageRecord(id: 9, from: "w", to: "u", text: "a", sentAt: 1)),
         .insertMessage(MessageRecord(id: 9, from: "w", to: "u", text: "b", sentAt: 1))],
        [event("u", 3)],
        [event("v", 2), event("v", 3), event("v", 4)],
    ]

    /// The in-memory store's job: one `write` per batch, one completion with every result.
    @Test func thePortsDefaultJobCompletesOnceWithEveryResult() throws {
        let store = InMemoryGatewayStore()
        let recorder = Recorder<Int>()
        store.write(batches: [[event("u", 1)], [event("u", 2), event("v", 1)], []]) { errors in
            recorder.record(errors.filter { $0 == nil }.count)
        }
        #expect(recorder.wait(for: 1) == [3])
        #expect(try store.events(userId: "u", after: 0, limit: 10).map(\.offset) == [1, 2])
    }

    @Test func aCompletionRunsOnlyOnceAFreshConnectionSeesTheData() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try openStore(path)
        defer { store.close() }
        let recorder = Recorder<Int64?>()
        for offset in Int64(1)...50 {
            store.write([event("u", offset)]) { _ in
                // A new connection has no cache and no snapshot of its own: it sees only what is committed.
                let fresh = try? SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
                let newest = try? fresh?.queryFirst("SELECT MAX(\"offset\") FROM events WHERE user_id = 'u'") {
                    $0.optionalInt64(0)
                } ?? nil
                fresh?.close()
                recorder.record(newest)
            }
        }
        let seen = recorder.wait(for: 50)
        // Each completion's own offset (at least) is already visible.
        #expect(seen.count == 50)
        for (index, newest) in seen.enumerated() {
            #expect((newest ?? 0) >= Int64(index + 1), "completion \(index + 1) ran before its commit was visible")
        }
    }

    @Test func throughputOfSingleEventBatches() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        let count = 100_000
        let payload = Array("{\"text\":\"hello, this is a typical small event payload\"}".utf8)
        let recorder = Recorder<Bool>()
        let start = DispatchTime.now()
        for offset in 1...count {
            store.write([event("user\(offset % 100)", Int64((offset - 1) / 100 + 1), payload: payload)]) { error in
                if error != nil || offset == count { recorder.record(error == nil) }
            }
        }
        let outcome = recorder.wait(for: 1)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        #expect(outcome == [true])
        print("SQLiteGatewayStore: \(count) single-event batches in \(String(format: "%.2f", seconds)) s = "
              + "\(Int(Double(count) / seconds)) appends/s in \(store.commitCount) commits")
    }
}
