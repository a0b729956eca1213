import Foundation
import Gateway
import Synchronization
import Testing
@testable import Storage

/// The write connection's WAL frames reach the OS as one `pwrite` per transaction (the `sb-wal` VFS), and what a
/// commit reported is readable by every other connection at once, across checkpoints, large transactions and reopen.
@Suite struct WALGatherTests {
    /// A direct message row with id `id`: a second insert of the same id is refused (`StoreConflict`), which is how
    /// these tests make one batch of a group fail.
    static func message(_ id: Int64) -> StoreWrite {
        .insertMessage(MessageRecord(id: id, from: "m-from", to: "m-to", text: "hi", sentAt: 1))
    }

    /// The most one `pwrite` carries (`WRITE_CHUNK` in wal_vfs.c: 31 pages, under the default VFS's 128 KiB limit).
    private static let chunk: Int64 = 31 * 4096

    /// The `pwrite`s a transaction of `writes` WAL writes (a frame header and a 4 KiB page each pair) needs.
    private static func pwrites(forWrites writes: Int64) -> Int64 { (writes / 2 * (24 + 4096) + chunk - 1) / chunk }

    @Test func aTransactionOfManyPagesIsOnePwritePer124KiB() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        #expect(commit(store, [spreadEvents(users: 200, perUser: 1)]) == [nil])   // the WAL exists and its header is written
        let before = try store.walWrites()
        #expect(commit(store, [spreadEvents(users: 200, perUser: 2, from: 2)]) == [nil])
        let after = try store.walWrites()
        // Two writes per dirty page (frame header, page) as SQLite makes them, one `pwrite` per 31 frames' bytes.
        #expect(after.writes - before.writes >= 40)
        #expect(after.pwrites - before.pwrites == Self.pwrites(forWrites: after.writes - before.writes))
    }

    @Test func withoutGatheringTheDefaultVFSWritesAndNothingIsCounted() throws {
        let directory = try TemporaryDirectory()
        var options = SQLiteStoreOptions(path: directory.path())
        options.gatherWalWrites = false
        let store = try SQLiteGatewayStore(options: options)
        defer { store.close() }
        #expect(commit(store, [spreadEvents(users: 50, perUser: 1)]) == [nil])
        let counts = try store.walWrites()   // the default VFS: nothing gathered, nothing counted
        #expect(counts.writes == 0 && counts.pwrites == 0)
        #expect(try store.events(userId: "user-7", after: 0, limit: 10).map(\.offset) == [1])
    }

    @Test func everyCommitIsReadableByOtherConnectionsWhenItsCompletionRuns() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var options = SQLiteStoreOptions(path: path)
        options.walCheckpointPages = 16   // checkpoints (WAL reads, restarts) between the commits too
        options.walResetPages = 64
        let store = try SQLiteGatewayStore(options: options)
        defer { store.close() }
        let outside = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { outside.close() }
        for round in 1...60 {
            #expect(commit(store, [spreadEvents(users: 40, perUser: 1, from: Int64(round), bytes: 300)]) == [nil])
            // The store's own reader and a connection on the default VFS both see the round just reported.
            #expect(try store.events(userId: "user-\(round % 40)", after: 0, limit: 100).count == round)
            let count = try outside.queryFirst("SELECT COUNT(*) FROM events WHERE user_id = 'user-3'") { $0.int64(0) }
            #expect(count == Int64(round))
        }
        // The checkpoints' copies into the database file (the checkpoint connection's, on the same VFS), in page
        // order, went out as runs of neighbouring pages.
        let copies = store.checkpointer.waitUntilIdle().writes
        #expect(copies.checkpointWrites > 100)
        #expect(copies.checkpointPwrites * 2 < copies.checkpointWrites)
    }

    @Test func aTransactionLargerThanTheGatherLimitIsWrittenInRunsAndSurvivesReopen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let payload = { (user: Int) in Array(repeating: UInt8(user), count: 64 * 1024) }
        let writes = (1...100).map { user in event("big-\(user)", 1, payload: payload(user)) }   // ≈ 6.6 MB of pages
        do {
            let store = try openStore(path)
            defer { store.close() }
            let before = try store.walWrites()
            #expect(commit(store, [writes]) == [nil])
            let after = try store.walWrites()
            // Written as it grows past the 4 MiB gather limit, then at the commit: at most one short run more.
            #expect(after.pwrites - before.pwrites >= Self.pwrites(forWrites: after.writes - before.writes))
            #expect(after.pwrites - before.pwrites <= Self.pwrites(forWrites: after.writes - before.writes) + 2)
        }
        let store = try openStore(path)
        defer { store.close() }
        for user in [1, 50, 100] {
            #expect(try store.events(userId: "big-\(user)", after: 0, limit: 5).map(\.payload) == [payload(user)])
        }
        let check = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { check.close() }
        #expect(try check.queryFirst("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }

    @Test func aFailedBatchInTheGroupLeavesTheOthersCommittedAndTheFileWhole() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try openStore(path)
        #expect(commit(store, [[event("a", 1), Self.message(7)]]) == [nil])
        // Message id 7 again is refused; its batch is rolled back inside the transaction the other two commit in.
        let results = commit(store, [spreadEvents(users: 30, perUser: 1), [event("b", 1), Self.message(7)], [event("c", 1)]])
        #expect(results[0] == nil && results[1] != nil && results[2] == nil)
        store.close()
        let check = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { check.close() }
        #expect(try check.queryFirst("PRAGMA integrity_check") { $0.string(0) } == "ok")
        #expect(try check.query("SELECT user_id, \"offset\" FROM events WHERE user_id IN ('a', 'b', 'c') ORDER BY 1, 2") {
            "\($0.string(0))\($0.int64(1))"
        } == ["a1", "c1"])
    }

    /// A batch's savepoint copies every page it changes to a sub-journal; past 64 KiB SQLite would move it to a
    /// temporary file. In memory, rolling a large batch back still restores every page.
    @Test func aLargeBatchRolledBackToItsSavepointLeavesNoTrace() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try openStore(path)
        #expect(commit(store, [spreadEvents(users: 300, perUser: 1) + [Self.message(7)]]) == [nil])
        let before = SQLiteConnection.subJournalsInMemory
        // The second batch changes hundreds of pages (well past 64 KiB of undo copies), then fails on a taken
        // message id.
        let results = commit(store, [spreadEvents(users: 300, perUser: 3, from: 2, bytes: 400) + [Self.message(7)], [event("after", 1)]])
        #expect(results[0] != nil && results[1] == nil)
        #expect(SQLiteConnection.subJournalsInMemory > before)
        #expect(try store.events(userId: "user-5", after: 0, limit: 10).map(\.offset) == [1])
        #expect(try store.events(userId: "after", after: 0, limit: 10).map(\.offset) == [1])
        store.close()
        let check = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { check.close() }
        #expect(try check.queryFirst("PRAGMA integrity_check") { $0.string(0) } == "ok")
        #expect(try check.queryFirst("SELECT COUNT(*) FROM events") { $0.int64(0) } == 301)
    }

    /// A reader on another thread (the default VFS) never sees a commit whose frames are not in the file: every count it
    /// reads is a whole number of transactions, never falling, while the writer commits and checkpoints.
    @Test func aConcurrentReaderSeesOnlyWholeTransactions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var options = SQLiteStoreOptions(path: path)
        options.walCheckpointPages = 32
        options.walResetPages = 96   // the WAL starts over while the reader reads
        let store = try SQLiteGatewayStore(options: options)
        defer { store.close() }
        #expect(commit(store, [[event("seed", 1)]]) == [nil])
        let stop = Atomic<Bool>(false)
        let seen = Recorder<String>()
        let reader = Thread {
            do {
                let db = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 5000)
                defer { db.close() }
                var last: Int64 = 0
                var reads = 0
                while !stop.load(ordering: .relaxed) || reads == 0 {
                    let count = try db.queryFirst("SELECT COUNT(*) FROM events WHERE user_id LIKE 'user-%'") { $0.int64(0) } ?? -1
                    if count % 25 != 0 || count < last { seen.record("bad count \(count) after \(last)") }
                    last = count
                    reads += 1
                }
                seen.record("done \(reads)")
            } catch {
                seen.record("error \(error)")
            }
        }
        reader.start()
        for round in 1...120 {
            #expect(commit(store, [spreadEvents(users: 25, perUser: 1, from: Int64(round), bytes: 500)]) == [nil])
        }
        stop.store(true, ordering: .relaxed)
        let outcome = seen.wait(for: 1)
        #expect(outcome.count == 1 && outcome.first?.hasPrefix("done") == true, "\(outcome)")
    }

    @Test func withSynchronousFullEveryCommitIsSyncedAndReadable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var options = SQLiteStoreOptions(path: path)
        options.synchronous = .full
        do {
            let store = try SQLiteGatewayStore(options: options)
            defer { store.close() }
            for round in 1...5 {
                #expect(commit(store, [spreadEvents(users: 50, perUser: 1, from: Int64(round))]) == [nil])
            }
            let counts = try store.walWrites()
            #expect(counts.pwrites > 0 && counts.pwrites * 10 < counts.writes)
        }
        let check = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { check.close() }
        #expect(try check.queryFirst("SELECT COUNT(*) FROM events") { $0.int64(0) } == 250)
        #expect(try check.queryFirst("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }
}
