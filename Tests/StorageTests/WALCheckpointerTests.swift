import Dispatch
import Foundation
import Gateway
import Testing
@testable import Storage

/// The WAL is copied into the database file by the checkpoint connection on its own thread: commits never run a
/// checkpoint nor wait for one (except for the last step of a WAL reset), and `close()` stops the thread.
@Suite struct WALCheckpointerTests {
    /// A store that asks for a checkpoint every 16 WAL pages and starts the WAL over past `resetPages`.
    private func openStore(_ path: String, resetPages: Int = 100_000) throws -> SQLiteGatewayStore {
        var options = SQLiteStoreOptions(path: path)
        options.walCheckpointPages = 16
        options.walResetPages = resetPages
        return try SQLiteGatewayStore(options: options)
    }

    /// One round of events: 40 users, 300 bytes each (several WAL pages).
    private func round(_ number: Int) -> [StoreWrite] {
        spreadEvents(users: 40, perUser: 1, from: Int64(number), bytes: 300)
    }

    /// Holds every checkpoint before it runs until `release` is signalled; `started` gets each one's mode.
    private func holdEachCheckpoint(_ store: SQLiteGatewayStore) -> (started: Recorder<WALCheckpointMode>, release: DispatchSemaphore) {
        let started = Recorder<WALCheckpointMode>()
        let release = DispatchSemaphore(value: 0)
        store.checkpointer.beforeEachCheckpoint { mode in
            started.record(mode)
            release.wait()
        }
        return (started, release)
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func theCheckpointConnectionCopiesTheWALAfterEnoughCommitsAndTheWriterNever() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try openStore(path)
        defer { store.close() }
        #expect(commit(store, [round(1)]) == [nil])
        #expect(try store.writerPragma("wal_autocheckpoint") == 0)
        let writerBefore = try store.walWrites()
        let fileBefore = fileSize(path)
        for number in 2...30 { #expect(commit(store, [round(number)]) == [nil]) }
        let statistics = store.checkpointer.waitUntilIdle()
        #expect(statistics.checkpoints >= 1)
        #expect(statistics.lastError == nil)
        // The pages reached the database file through the checkpoint connection's writes, none through the writer's.
        #expect(statistics.writes.checkpointWrites > 50)
        #expect(try store.walWrites().checkpointWrites == writerBefore.checkpointWrites)
        #expect(fileSize(path) > fileBefore)
        #expect(try store.events(userId: "user-9", after: 0, limit: 100).count == 30)
    }

    @Test func commitsGoOnWhileACheckpointIsHeld() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        let (started, release) = holdEachCheckpoint(store)
        defer { for _ in 0..<4 { release.signal() } }   // a failed expectation never leaves the checkpointer held
        var number = 0
        repeat {   // until the first checkpoint is due and held
            number += 1
            #expect(commit(store, [round(number)]) == [nil])
        } while started.count == 0 && number < 200
        #expect(started.wait(for: 1) == [.passive])
        // Every commit below completes while the checkpoint is held: none of them runs or waits for it.
        for _ in 1...20 {
            number += 1
            #expect(commit(store, [round(number)]) == [nil])
        }
        #expect(store.checkpointer.currentStatistics.checkpoints == 0)
        #expect(try store.events(userId: "user-3", after: 0, limit: 500).count == number)
        for _ in 0..<2 { release.signal() }   // the held one and the one the commits since asked for
        #expect(store.checkpointer.waitUntilIdle().checkpoints >= 1)
    }

    @Test func afterACheckpointThatCopiedEveryFrameTheNextCommitWritesTheWALFromItsBeginning() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        var number = 0
        repeat {
            number += 1
            #expect(commit(store, [round(number)]) == [nil])
        } while store.checkpointer.waitUntilIdle().checkpoints == 0 && number < 200
        let before = store.checkpointer.walFrames
        #expect(before >= 16)
        #expect(commit(store, [[event("probe", 1)]]) == [nil])   // a page or two
        #expect(store.checkpointer.walFrames < before)
        #expect(store.checkpointer.currentStatistics.resets == 0)   // no reset needed: nothing held the writer
        #expect(try store.events(userId: "user-17", after: 0, limit: 500).count == number)
        #expect(try store.events(userId: "probe", after: 0, limit: 5).count == 1)
    }

    /// A reader keeps its snapshot, so passive checkpoints cannot copy past it and the WAL grows past its reset length;
    /// the reset then holds the writer between transactions, waits for the reader, and the writer's next commit writes
    /// the WAL from its beginning.
    @Test func aResetHoldsTheWriterBetweenTransactionsAndItsNextCommitStartsTheWALOver() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try openStore(path, resetPages: 64)
        defer { store.close() }
        let seen = Recorder<String>()
        let release = DispatchSemaphore(value: 0)
        defer { for _ in 0..<4 { release.signal() } }   // a failed expectation never leaves the checkpointer held
        store.checkpointer.beforeEachCheckpoint { mode in
            guard mode == .restart else { return }
            seen.record("reset")   // the passive part is done and no transaction is open; the writer waits from here
            release.wait()
        }
        #expect(commit(store, [round(1)]) == [nil])
        let reader = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { reader.close() }
        try reader.run("BEGIN")
        #expect(try reader.queryFirst("SELECT COUNT(*) FROM events") { $0.int64(0) } == 40)
        let write = { (number: Int) in
            store.write(round(number)) { error in seen.record(error.map { "\($0)" } ?? "commit \(number) \(store.checkpointer.walFrames)") }
        }
        var number = 1
        repeat {
            number += 1
            let before = seen.count
            write(number)
            _ = seen.wait(for: before + 1)   // this commit's completion, or the reset (the commit may then wait for it)
            store.checkpointer.waitUntilIdleOrResetting()
        } while !store.checkpointer.isResetting && number < 200
        try #require(store.checkpointer.isResetting)
        while !seen.all.contains("reset") { _ = seen.wait(for: seen.count + 1) }
        let framesAtReset = store.checkpointer.walFrames   // every round since the reader began, at least 64
        #expect(framesAtReset >= 64)
        try reader.run("COMMIT")   // the reset's RESTART checkpoint can now copy every frame
        // Queued once the reset holds the writer: it begins only after the reset, with every frame copied.
        store.write([event("probe", 1)]) { error in seen.record(error.map { "\($0)" } ?? "probe \(store.checkpointer.walFrames)") }
        store.checkpointer.waitUntilWriterHeld()
        release.signal()
        let all = seen.wait(for: number + 1)
        #expect(all.count == number + 1)
        // The WAL now holds at most the round the reset held and the probe.
        let probe = all.last { $0.hasPrefix("probe ") }?.split(separator: " ").last.flatMap { Int($0) }
        #expect(probe.map { $0 < framesAtReset } == true, "the WAL did not start over: \(all)")
        #expect(store.checkpointer.waitUntilIdle().resets == 1)
        #expect(fileSize(path + "-wal") <= 64 * 4096)   // cut back to journal_size_limit when it started over
        store.close()
        let check = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { check.close() }
        #expect(try check.queryFirst("PRAGMA integrity_check") { $0.string(0) } == "ok")
        #expect(try check.queryFirst("SELECT COUNT(*) FROM events") { $0.int64(0) } == Int64(number * 40 + 1))
    }

    @Test func closeLetsTheRunningCheckpointFinishDropsThePendingOneAndEndsTheThread() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try openStore(path)
        let (started, release) = holdEachCheckpoint(store)
        defer { for _ in 0..<4 { release.signal() } }   // a failed expectation never leaves the checkpointer held
        var number = 0
        repeat {
            number += 1
            #expect(commit(store, [round(number)]) == [nil])
        } while started.count == 0 && number < 200
        #expect(started.wait(for: 1).count == 1)
        for _ in 1...10 {   // enough pages for a second request, which waits behind the held checkpoint
            number += 1
            #expect(commit(store, [round(number)]) == [nil])
        }
        let closed = Recorder<Bool>()
        Thread {
            store.close()
            closed.record(store.checkpointer.hasExited)
        }.start()
        store.checkpointer.waitUntilStopping()
        release.signal()
        #expect(closed.wait(for: 1) == [true])
        #expect(started.count == 1)   // the pending request did not run
        #expect(store.checkpointer.currentStatistics.checkpoints == 1)
        let reopened = try openStore(path)
        defer { reopened.close() }
        #expect(try reopened.events(userId: "user-0", after: 0, limit: 500).count == number)
    }

    @Test func closeFromAWriteCompletionEndsTheCheckpointerToo() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        let exited = Recorder<Bool>()
        store.write(round(1)) { error in
            store.close()   // on the writer thread: the writer only asked to stop; the checkpointer is joined
            exited.record(error == nil && store.checkpointer.hasExited)
        }
        #expect(exited.wait(for: 1) == [true])
    }
}

extension Recorder {
    /// Values recorded so far.
    var all: [Value] { wait(for: 0) }
    var count: Int { all.count }
}

extension SQLiteGatewayStore {
    /// A pragma's value on the write connection, after every write queued before.
    func writerPragma(_ name: String) throws -> Int64? {
        try writer.runAlone { backend throws(StorageError) in try backend.connection.queryFirst("PRAGMA \(name)") { $0.int64(0) } } ?? nil
    }
}
