import Foundation
import Gateway
import Testing
@testable import Storage

/// The database file itself: migrations, bad files, and the behaviour only the SQLite store has.
@Suite struct SQLiteStoreFileTests {
    @Test func migrationsRunOnceAcrossOpens() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try openStore(path).close()
        try openStore(path).close()
        let db = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMs: 1000)
        defer { db.close() }
        #expect(try SchemaMigrations.currentVersion(db) == SchemaMigrations.all.count)
        #expect(try db.queryFirst("SELECT COUNT(*) FROM schema_version") { $0.int64(0) } == 1)
        #expect(try db.queryFirst("PRAGMA journal_mode") { $0.string(0) } == "wal")

        // A new migration applies exactly once: creating its table a second time would fail.
        let nextVersion = SchemaMigrations.all.count + 1
        let next = SchemaMigrations.all + [SchemaMigration(version: nextVersion, sql: "CREATE TABLE extra (x INTEGER)")]
        #expect(try SchemaMigrations.migrate(db, migrations: next) == nextVersion)
        #expect(try SchemaMigrations.migrate(db, migrations: next) == nextVersion)
        #expect(try db.queryFirst("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'extra'") { $0.int64(0) } == 1)
    }

    @Test func aFailingMigrationIsRolledBackAndNamed() throws {
        let directory = try TemporaryDirectory()
        let db = try SQLiteConnection(path: directory.path(), readOnly: false, busyTimeoutMs: 1000)
        defer { db.close() }
        let brokenVersion = SchemaMigrations.all.count + 1
        let broken = SchemaMigrations.all + [SchemaMigration(version: brokenVersion, sql: "CREATE TABLE half (x); SELECT * FROM missing")]
        let error = #expect(throws: StorageError.self) { try SchemaMigrations.migrate(db, migrations: broken) }
        #expect(error?.message.contains("migration \(brokenVersion)") == true)
        #expect(error?.message.contains("no such table: missing") == true)
        #expect(try SchemaMigrations.currentVersion(db) == brokenVersion - 1)
        #expect(try db.queryFirst("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'half'") { $0.int64(0) } == 0)
    }

    @Test func aNewerSchemaIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try openStore(path).close()
        do {
            let db = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMs: 1000)
            try db.execute("UPDATE schema_version SET version = 99")
            db.close()
        }
        let error = #expect(throws: StorageError.self) { try openStore(path) }
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains("99") == true)
    }

    @Test(arguments: ["not a database at all, just some text\n", String(repeating: "\u{1}garbage", count: 4096)])
    func aFileThatIsNotSQLiteGivesAnErrorNamingThePath(content: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.db")
        try content.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: StorageError.self) { try openStore(path) }
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains("not a database") == true)
    }

    @Test func aMissingDirectoryGivesAnErrorNamingThePath() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("no/such/dir/gateway.db")
        let error = #expect(throws: StorageError.self) { try openStore(path) }
        #expect(error?.message.contains(path) == true)
    }

    @Test func approvalIdsContinueAboveDecimalSuffixesOnly() throws {
        let empty = try TemporaryDirectory()
        let fresh = try openStore(empty.path())
        defer { fresh.close() }
        #expect(try fresh.reserveIds(.approval, count: 1, above: 0) == [1])
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        let ids = ["apr_7", "apr_12", "apr_x", "apr_", "apr_3b", "apr_99999999999999999999", "zzz_50", "apr_-40", "APR_60"]
        let writes = ids.enumerated().map { index, id in
            StoreWrite.upsertApproval(ApprovalRecord(id: id, userId: "u", sessionId: "s", toolName: "t", summary: "",
                                                     state: index.isMultiple(of: 2) ? .pending : .denied,
                                                     createdAt: 1, expiresAt: 2))
        }
        #expect(commit(store, [writes]) == [nil])
        // Resolved approvals count too: their ids were used. The counter begins at the first reservation.
        #expect(try store.reserveIds(.approval, count: 1, above: 0) == [13])
    }

    @Test func reactivatingAContactKeepsItsCreationTime() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        let writes: [StoreWrite] = [
            .upsertContact(ContactRecord(userId: "a", contactId: "b", createdAt: 100)),
            .upsertContact(ContactRecord(userId: "a", contactId: "b", createdAt: 200, active: false)),
            .upsertContact(ContactRecord(userId: "a", contactId: "b", createdAt: 300, active: true)),
        ]
        #expect(commit(store, writes.map { [$0] }) == [nil, nil, nil])
        #expect(try store.loadSnapshot().contacts == [ContactRecord(userId: "a", contactId: "b", createdAt: 100, active: true)])
    }

    @Test func pruneKeepsTheNewestEventsOfEveryUser() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        defer { store.close() }
        var writes: [StoreWrite] = []
        for user in ["a", "b", "c"] {
            let count: Int64 = user == "a" ? 50 : (user == "b" ? 3 : 20)
            for offset in 1...count { writes.append(event(user, offset, createdAt: offset * 10)) }
        }
        #expect(commit(store, [writes]) == [nil])
        // Only the time limit bites: offsets 1…14 are older than 150 ms (b's 3 events are all protected).
        #expect(try store.pruneEvents(before: 150, keepLatest: 5) == 14 + 0 + 14)
        #expect(try store.events(userId: "a", after: 0, limit: 100).map(\.offset) == Array(15...50))
        #expect(try store.events(userId: "c", after: 0, limit: 100).map(\.offset) == Array(15...20))
        // Only the keep limit bites: everything is old, the newest 5 of each user stay.
        #expect(try store.pruneEvents(before: 10_000, keepLatest: 5) == 31 + 0 + 1)
        #expect(try store.events(userId: "a", after: 0, limit: 100).map(\.offset) == Array(46...50))
        #expect(try store.events(userId: "b", after: 0, limit: 100).map(\.offset) == [1, 2, 3])
        #expect(try store.events(userId: "c", after: 0, limit: 100).map(\.offset) == Array(16...20))
        #expect(try store.oldestOffset(userId: "a") == 46)
        #expect(try store.pruneEvents(before: 10_000, keepLatest: 5) == 0)
    }
}
