import Foundation
import Gateway
import Testing
@testable import Storage

/// Migration 8 adds push job claims; the jobs of a version 7 file keep their ids and are claimed like new ones, and
/// new jobs are numbered after them.
@Suite struct PushClaimMigrationTests {
    /// A sent job 1 and a pending job 2, their blobs as this build writes them.
    static var version7Rows: String {
        let job = StoreDecisionContractTests.pushJob(due: 10)
        func hex(_ value: some Encodable) -> String { "X'" + PushBlobs.encode(value).map { String(format: "%02x", $0) }.joined() + "'" }
        return """
            INSERT INTO push_jobs (id, user_id, device_id, target, notice, fallback, state, attempts, next_attempt_at, last_error, created_at) VALUES
                (1, 'u1', 'd1', \(hex(job.target)), \(hex(job.notice)), NULL, 'sent', 1, 10, NULL, 10),
                (2, 'u1', 'd1', \(hex(job.target)), \(hex(job.notice)), NULL, 'pending', 0, 20, NULL, 20);
            """
    }

    @Test func jobsOfAVersion7FileAreClaimedAndNewJobsAreNumberedAfterThem() throws {
        let directory = try TemporaryDirectory()
        let path = try databaseAt(version: 7, in: directory, rows: Self.version7Rows)
        let store = try openStore(path)
        defer { store.close() }
        let db = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { db.close() }
        #expect(try SchemaMigrations.currentVersion(db) == SchemaMigrations.all.map(\.version).max())
        let columns = try db.query("SELECT name FROM pragma_table_info('push_jobs') ORDER BY cid") { $0.string(0) }
        #expect(columns.suffix(2) == ["claimed_by", "lease_until"])

        #expect(commit(store, [[.enqueuePush(StoreDecisionContractTests.pushJob(due: 30))]]) == [nil])
        let claimed = try store.claimPushJobs(claimant: "a", now: 100, leaseMs: 1_000, limit: 10)
        #expect(claimed.map(\.id) == [2, 3])
        #expect(claimed.first?.notice.genericTitle == "New message")
        #expect(try db.query("SELECT claimed_by, lease_until FROM push_jobs WHERE id = 2") { [$0.string(0), String($0.int64(1))] }
                == [["a", "1100"]])
    }
}

/// A SQLite file has one serving process: the claims of the previous one (which crashed mid-send) end when the file
/// is opened again, so its jobs are due at once, not after their lease.
@Suite struct SQLitePushClaimReopenTests {
    @Test func reopeningTheFileEndsThePreviousProcesssClaims() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory.path())
        #expect(commit(store, [[.enqueuePush(StoreDecisionContractTests.pushJob(due: 10))]]) == [nil])
        #expect(try store.claimPushJobs(claimant: "a", now: 100, leaseMs: 60_000, limit: 10).map(\.id) == [1])
        #expect(try store.claimPushJobs(claimant: "a", now: 200, leaseMs: 60_000, limit: 10).isEmpty)
        store.close()
        let reopened = try openStore(directory.path())
        defer { reopened.close() }
        #expect(try reopened.claimPushJobs(claimant: "b", now: 200, leaseMs: 60_000, limit: 10).map(\.id) == [1])
    }
}

/// PostgreSQL's migration 8: the jobs of a version 7 database keep their ids, new ones are numbered past the largest.
@Suite struct PostgresPushClaimMigrationTests {
    @Test func jobsOfAVersion7DatabaseAreClaimedAndNewJobsAreNumberedAfterThem() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let db = try PostgresDatabase(options: PostgresStoreOptions(url: url))
        try db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version (version) VALUES (7)")
        for migration in PostgresSchema.migrations where migration.version <= 7 { try db.execute(migration.sql) }
        let job = StoreDecisionContractTests.pushJob(due: 10)
        for (id, state) in [(Int64(5), "sent"), (7, "pending")] {
            try db.query("""
                INSERT INTO push_jobs (id, user_id, device_id, target, notice, state, attempts, next_attempt_at, created_at)
                VALUES ($1, 'u1', 'd1', $2, $3, $4, 0, $1, $1)
                """, [id, PushBlobs.encode(job.target), PushBlobs.encode(job.notice), state])
        }
        db.close()

        let store = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { store.close() }
        #expect(commit(store, [[.enqueuePush(job)], [.enqueuePush(job)]]) == [nil, nil])
        #expect(try store.claimPushJobs(claimant: "a", now: 100, leaseMs: 1_000, limit: 10).map(\.id) == [7, 8, 9])
        #expect(try store.pushJob(id: 5)?.state == "sent")
    }
}
