import Foundation
import Gateway
import Testing
@testable import Storage

/// The `sb-wal` VFS's guards: it registers only on the SQLite versions it was tested on, a failing `pwrite` or
/// `fsync` fails the commit that made it (and nothing reported committed is lost), sub-journals past the in-memory
/// limit move to a temporary file, and the gather buffers are freed after a checkpoint.
@Suite struct WALGuardTests {
    /// SQLite's extended result codes for a failed write and a failed sync (SQLITE_IOERR | 3 << 8, | 4 << 8).
    private static let ioErrWrite: Int32 = 778
    private static let ioErrFsync: Int32 = 1034

    /// The error code (extended) of each batch's completion, nil for a committed batch, in completion order.
    private func commitCodes(_ store: SQLiteGatewayStore, _ batches: [[StoreWrite]]) -> [Int32?] {
        let recorder = Recorder<Int32?>()
        for batch in batches {
            store.write(batch) { error in recorder.record(error.map { ($0 as? StorageError)?.sqliteCode ?? -1 }) }
        }
        return recorder.wait(for: batches.count)
    }

    /// The offsets stored for `user`, read on a fresh connection on the default VFS after `store` closed.
    private func offsetsOnDisk(_ path: String, user: String) throws -> [Int64] {
        let check = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { check.close() }
        #expect(try check.queryFirst("PRAGMA integrity_check") { $0.string(0) } == "ok")
        return try check.query(
            "SELECT \"offset\" FROM events WHERE user_id = ?1 ORDER BY 1", bind: { $0.bind(1, user) }
        ) {
            $0.int64(0)
        }
    }

    @Test func theVFSRegistersOnlyOnTheTestedSQLiteVersions() throws {
        #expect(SQLiteConnection.isTestedSQLiteVersion(3_040_000))
        #expect(SQLiteConnection.isTestedSQLiteVersion(3_040_001))
        #expect(!SQLiteConnection.isTestedSQLiteVersion(3_039_004))
        #expect(!SQLiteConnection.isTestedSQLiteVersion(3_041_000))
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        if SQLiteConnection.isTestedSQLiteVersion(SQLiteConnection.sqliteVersionNumber) {
            #expect(store.walGathering == .on)
        } else {
            // Another SQLite: the store still opens and commits, on the default VFS.
            guard case .refused = store.walGathering else {
                Issue.record("expected a refusal, got \(store.walGathering)")
                return
            }
        }
        #expect(commit(store, [[event("v", 1)]]) == [nil])
    }

    @Test func aFailingPwriteFailsTheCommitThatMadeIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        do {
            let store = try openStore(path)
            defer { store.close() }
            try #require(store.walGathering == .on)
            #expect(commitCodes(store, [spreadEvents(users: 30, perUser: 1), [event("w", 1)]]) == [nil, nil])
            try store.injectWALFault(.write)
            // The commit right after: its frames never reach the file, and its completion says so.
            #expect(commitCodes(store, [[event("w", 2), event("x", 1)]]) == [Self.ioErrWrite])
            // The next commit is whole again, and takes the offset the failed one did not keep.
            #expect(commitCodes(store, [[event("w", 2), event("y", 1)]]) == [nil])
            #expect(try store.events(userId: "w", after: 0, limit: 10).map(\.offset) == [1, 2])
        }
        #expect(try offsetsOnDisk(path, user: "w") == [1, 2])
        #expect(try offsetsOnDisk(path, user: "x") == [])
        #expect(try offsetsOnDisk(path, user: "y") == [1])
        #expect(try offsetsOnDisk(path, user: "user-7") == [1])
    }

    @Test func aFailingFsyncFailsTheCommitThatMadeItWithSynchronousFull() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var options = SQLiteStoreOptions(path: path)
        options.synchronous = .full
        do {
            let store = try SQLiteGatewayStore(options: options)
            defer { store.close() }
            try #require(store.walGathering == .on)
            #expect(commitCodes(store, [[event("s", 1)]]) == [nil])
            try store.injectWALFault(.sync)
            #expect(commitCodes(store, [[event("s", 2), event("t", 1)]]) == [Self.ioErrFsync])
            #expect(commitCodes(store, [[event("u", 1)]]) == [nil])
            #expect(try store.events(userId: "s", after: 0, limit: 10).map(\.offset) == [1])
        }
        #expect(try offsetsOnDisk(path, user: "s") == [1])
        #expect(try offsetsOnDisk(path, user: "t") == [])
        #expect(try offsetsOnDisk(path, user: "u") == [1])
    }

    /// A savepoint that changes more existing pages than the in-memory limit (4 MiB of undo copies) moves its
    /// sub-journal to a temporary file; rolling it back still restores every page.
    @Test func aSubJournalPastTheLimitMovesToAFileAndStillRollsBack() throws {
        let directory = try TemporaryDirectory()
        let db = try SQLiteConnection(
            path: directory.path(), readOnly: false, busyTimeoutMs: 1000, gatherWalWrites: true)
        defer { db.close() }
        try #require(db.walGathering == .on)
        #expect(try db.queryFirst("PRAGMA journal_mode = WAL") { $0.string(0) } == "wal")
        try db.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB)")
        try db.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
                + "INSERT INTO pages SELECT i, randomblob(3000) FROM n")  // 2 000 pages, ≈ 8 MiB
        let spilledBefore = SQLiteConnection.subJournalsSpilled
        let digest = "SELECT group_concat(hex(substr(body, 1, 8)), '') FROM pages ORDER BY id"
        let before = try db.queryFirst(digest) { $0.string(0) }
        try db.execute("BEGIN; SAVEPOINT batch; UPDATE pages SET body = zeroblob(3000);")
        #expect(SQLiteConnection.subJournalsSpilled > spilledBefore)
        try db.execute("ROLLBACK TO batch; RELEASE batch; COMMIT")
        #expect(try db.queryFirst(digest) { $0.string(0) } == before)
        #expect(try db.queryFirst("SELECT count(*) FROM pages WHERE body = zeroblob(3000)") { $0.int64(0) } == 0)
        #expect(try db.queryFirst("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }

    /// A transaction of 6.6 MB grows the WAL's gather buffer to its 4 MiB limit; once a checkpoint copied the WAL
    /// and the next commit starts it over (and cuts the file back), the buffer is freed: at most the small commit's
    /// run is held. The checkpoint connection's buffer is freed when its checkpoint syncs.
    @Test func theGatherBuffersAreFreedAfterACheckpoint() throws {
        let directory = try TemporaryDirectory()
        var options = SQLiteStoreOptions(path: directory.path())
        options.walCheckpointPages = 16
        options.walResetPages = 64
        let store = try SQLiteGatewayStore(options: options)
        defer { store.close() }
        try #require(store.walGathering == .on)
        let big = (1...100).map { user in
            event("big-\(user)", 1, payload: Array(repeating: UInt8(user), count: 64 * 1024))
        }
        #expect(commit(store, [big]) == [nil])
        #expect(try store.walWrites().walBufferBytes == 4 * 1024 * 1024)
        let copied = store.checkpointer.waitUntilIdle()
        #expect(copied.writes.checkpointWrites > 0)
        #expect(copied.writes.databaseBufferBytes == 0)
        #expect(commit(store, [[event("small", 1)]]) == [nil])
        let held = try store.walWrites().walBufferBytes
        #expect(held <= 128 * 1024, "\(held) bytes held")
        #expect(try store.events(userId: "big-42", after: 0, limit: 5).map(\.offset) == [1])
    }
}
