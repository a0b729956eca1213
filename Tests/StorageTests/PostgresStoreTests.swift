import Foundation
import Gateway
import Synchronization
import Testing
@testable import Storage

/// The PostgreSQL store on a real server (a database of its own per test): the scripted conformance against the
/// in-memory reference, migrations by nodes starting together, reopening, and what errors name.
@Suite struct PostgresStoreTests {
    func openPostgres(url: String? = nil, maxBatchWrites: Int = 5000) throws -> PostgresGatewayStore {
        var options = PostgresStoreOptions(url: try url ?? PostgresCluster.shared().createDatabase())
        options.maxBatchWrites = maxBatchWrites
        return try PostgresGatewayStore(options: options)
    }

    @Test func postgresMatchesInMemoryWithOneWritePerBatch() throws {
        let store = try openPostgres()
        defer { store.close() }
        let single: ([StoreWrite]) -> [[StoreWrite]] = { $0.map { [$0] } }
        expectSame(
            try StoreScript.run(store, split: single), try StoreScript.run(InMemoryGatewayStore(), split: single))
    }

    @Test(arguments: [1, 2, 3, 42] as [UInt64])
    func postgresMatchesInMemoryWithRandomBatches(seed: UInt64) throws {
        // A tiny group limit too, so transactions end inside runs of queued batches.
        let store = try openPostgres(maxBatchWrites: Int(seed % 7) + 3)
        defer { store.close() }
        var rng = SeededGenerator(state: seed)
        let split: ([StoreWrite]) -> [[StoreWrite]] = { randomSplit($0, max: 12, using: &rng) }
        expectSame(
            try StoreScript.run(store, split: split), try StoreScript.run(InMemoryGatewayStore(), split: { [$0] }),
            "seed \(seed)")
    }

    @Test func reopeningTheDatabaseKeepsEverythingAndPrunedLogsKeepTheirOffsets() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let reference = InMemoryGatewayStore()
        _ = try StoreScript.run(reference, split: { [$0] })
        do {
            let store = try openPostgres(url: url)
            _ = try StoreScript.run(store, split: { [$0] })
            store.close()
        }
        let reopened = try openPostgres(url: url)
        defer { reopened.close() }
        expectSame(try StoreScript.observe(reopened), try StoreScript.observe(reference))
        #expect(try reopened.loadSnapshot().latestOffsets == ["u1": 31, "u2": 5, "u3": 1])
    }

    /// Migration 9 starts the id sequences above what a version-8 database holds; two nodes reserving at once never
    /// get the same id.
    @Test func idSequencesStartAboveStoredIdsAndTwoNodesNeverShareOne() throws {
        let url = try PostgresCluster.shared().createDatabase()
        do {
            let store = try openPostgres(url: url)
            let approval = ApprovalRecord(
                id: "apr_12", userId: "u", sessionId: "s", toolName: "t", summary: "s",
                createdAt: 1, expiresAt: 2)
            #expect(
                commit(
                    store,
                    [
                        [
                            .insertMessage(MessageRecord(id: 41, from: "u", to: "v", text: "hi", sentAt: 1)),
                            .createApproval(approval)
                        ]
                    ]) == [nil])
            store.close()
            let db = try PostgresDatabase(options: PostgresStoreOptions(url: url))
            // Back to version 8: undo 9 (the sequences) and the later versions' objects, so they migrate again.
            try db.execute(
                """
                DROP SEQUENCE message_ids; DROP SEQUENCE approval_ids;
                DROP INDEX friend_requests_by_sender; DROP INDEX friend_requests_by_recipient;
                DROP INDEX contact_pauses_by_contact; DROP INDEX user_phones_by_hash;
                ALTER TABLE user_phones DROP COLUMN phone_hash;
                DROP TABLE presence_push_claims; DROP INDEX devices_by_id;
                DROP INDEX sessions_open_by_user; CREATE INDEX sessions_open ON sessions (seq) WHERE state <> 'ended';
                DROP INDEX push_jobs_backend_pending; DROP TABLE user_blocks; DROP TABLE device_revocations;
                UPDATE schema_version SET version = 8
                """)
            db.close()
        }
        let (a, b) = (try openPostgres(url: url), try openPostgres(url: url))
        defer { a.close(); b.close() }
        #expect(try a.reserveIds(.message, count: 1, above: 0) == [42])
        #expect(try b.reserveIds(.approval, count: 1, above: 0) == [13])
        let drawn = Mutex<[Int64]>([])
        DispatchQueue.concurrentPerform(iterations: 40) { i in
            let ids = (try? (i % 2 == 0 ? a : b).reserveIds(.message, count: 5, above: 0)) ?? []
            drawn.withLock { $0 += ids }
        }
        let all = drawn.withLock { $0 }
        #expect(all.count == 200 && Set(all).count == 200 && all.allSatisfy { $0 > 42 })
    }

    @Test func aLogPrunedEmptyGoesOnAboveItsHead() throws {
        let store = try openPostgres()
        defer { store.close() }
        #expect(commit(store, [[event("u", 1, createdAt: 1), event("u", 2, createdAt: 1)]]) == [nil])
        #expect(try store.pruneEvents(before: 10, keepLatest: 0) == 2)
        #expect(commit(store, [[event("u", 0)]]) == [nil])
        #expect(try store.events(userId: "u", after: 0, limit: 10).map(\.offset) == [3])
    }

    /// Two nodes on one database appending flat out to the same two logs, in opposite orders within their batches (a
    /// direct message each way appends to both users' logs): the store takes each offset in the insert, so every
    /// batch commits at its first attempt, the receipts name each log's offsets 1…n once each, and the log heads,
    /// locked in one order per transaction, leave no deadlock to retry.
    @Test func twoNodesAppendingToOneLogAtOnceGetEveryOffsetOnceWithoutARetry() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let (a, b) = (try openPostgres(url: url), try openPostgres(url: url))
        defer { a.close(); b.close() }
        let rounds = 40, perRound = 5
        // Each node's batches name their logs in its own order: the receipt's offsets follow it.
        let receipts = Recorder<(logs: [String], results: [Result<StoreReceipt, Error>])>()
        for _ in 0..<rounds {
            a.commit(batches: Array(repeating: [event("u", 0), event("v", 0)], count: perRound)) {
                receipts.record((["u", "v"], $0))
            }
            b.commit(batches: Array(repeating: [event("v", 0), event("u", 0)], count: perRound)) {
                receipts.record((["v", "u"], $0))
            }
        }
        var taken: [String: [Int64]] = [:]
        for (logs, results) in receipts.wait(for: 2 * rounds) {
            for result in results {
                guard case .success(let receipt) = result else { Issue.record("\(result)"); continue }
                for (log, offset) in zip(logs, receipt.offsets) { taken[log, default: []].append(offset) }
            }
        }
        let all = Array(1...Int64(2 * rounds * perRound))
        #expect(taken["u"]?.sorted() == all)
        #expect(taken["v"]?.sorted() == all)
        #expect(try a.events(userId: "u", after: 0, limit: 1_000).map(\.offset) == all)
        #expect(try a.events(userId: "v", after: 0, limit: 1_000).map(\.offset) == all)
        #expect(a.raceRetryCount == 0 && b.raceRetryCount == 0)
    }

    @Test func twoNodesRacingOnTheSameDecisionsGetExactlyOneWinnerEachTime() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let (a, b) = (try openPostgres(url: url), try openPostgres(url: url))
        defer { a.close(); b.close() }
        let rounds = 40
        var pending = StoreDecisionContractTests.pending
        #expect(
            commit(
                a,
                (1...rounds).map { n in
                    pending.id = "apr_\(n)"; return [.createApproval(pending)]
                }
            ).allSatisfy { $0 == nil })
        // Each round both nodes submit at once: the same approval answered twice, the same offset appended twice.
        let results = Recorder<(Int, String, Bool)>()
        for n in 1...rounds {
            for (node, store) in [("a", a), ("b", b)] {
                var answer = StoreDecisionContractTests.decided(node == "a" ? .approved : .denied, by: node, at: 5_000)
                answer.id = "apr_\(n)"
                store.write([.decideApproval(answer), event("u", Int64(n), payload: Array(node.utf8))]) { error in
                    results.record((n, node, error == nil))
                }
            }
        }
        let outcomes = results.wait(for: rounds * 2)
        #expect(outcomes.count == rounds * 2)
        for n in 1...rounds {
            let winners = outcomes.filter { $0.0 == n && $0.2 }.map(\.1)
            #expect(winners.count == 1, "round \(n): \(winners)")
            // The store's row and the log agree with the one winner (its whole batch, nothing of the loser's).
            let approval = try a.approval(id: "apr_\(n)")
            #expect(approval?.decidedByDeviceId == winners.first)
            #expect(
                try a.events(userId: "u", after: Int64(n - 1), limit: 1).first.map {
                    String(decoding: $0.payload, as: UTF8.self)
                } == winners.first)
        }
    }

    @Test func aRestartedServerIsReconnectedToWithoutLosingACommittedWrite() throws {
        let cluster = try PostgresCluster()  // its own: restarted below
        defer { cluster.stop() }
        let url = try cluster.createDatabase()
        let store = try openPostgres(url: url)
        defer { store.close() }
        #expect(commit(store, [[event("u", 1)], [event("u", 2)]]) == [nil, nil])
        try cluster.restart()
        // Both connections are now dead but idle: the next write and the next read reconnect by themselves.
        #expect(commit(store, [[event("u", 3)]]) == [nil])
        #expect(try store.events(userId: "u", after: 0, limit: 10).map(\.offset) == [1, 2, 3])
        #expect(commit(store, [[event("u", 4)]]) == [nil])
        #expect(try store.loadSnapshot().latestOffsets == ["u": 4])
    }

    /// A batch that loses a deadlock (SQLSTATE 40P01) is applied again by the writer in a new transaction, after the
    /// batches before it committed and a short random wait, up to `raceAttempts` times in all. The server itself
    /// raises the SQLSTATE, from a trigger counting attempts with a sequence (which a rollback does not undo), so the
    /// real savepoint rollback runs; a real deadlock's victim is chosen by timing, which a test cannot hold still.
    @Test func aBatchThatLostADeadlockIsRetriedAndOneThatKeepsLosingReportsItAfterBoundedAttempts() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let store = try openPostgres(url: url)
        defer { store.close() }
        let db = try PostgresDatabase(options: PostgresStoreOptions(url: url))
        defer { db.close() }
        try db.execute("CREATE SEQUENCE lost_races")
        // A user named "loser<n>" loses its first n attempts.
        try db.execute(
            """
            CREATE FUNCTION lose_races() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF NEW.id LIKE 'loser%' AND nextval('lost_races') <= CAST(substr(NEW.id, 6) AS int) THEN
                RAISE EXCEPTION 'deadlock detected (test)' USING ERRCODE = 'deadlock_detected';
              END IF;
              RETURN NEW;
            END $$
            """)
        try db.execute("CREATE TRIGGER lose_races BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION lose_races()")
        func user(_ id: String) -> [StoreWrite] { [.upsertUser(UserRecord(id: id, hexCode: id, createdAt: 1))] }
        func write(_ batches: [[StoreWrite]]) -> [String?] {
            let results = Recorder<[String?]>()
            store.write(batches: batches) { errors in
                results.record(errors.map { $0.map { ($0 as? StorageError)?.sqlstate ?? "\($0)" } })
            }
            return results.wait(for: 1).first ?? []
        }
        let users = "SELECT count(*) FROM users WHERE id IN ('a1', 'a2', 'loser2', 'b1', 'b2', 'loser99')"

        #expect(write([user("a1"), user("loser2"), user("a2")]) == [nil, nil, nil])
        #expect(try db.int64("SELECT last_value FROM lost_races") == 3)  // lost twice, then stored
        #expect(store.raceRetryCount == 2)
        #expect(try db.int64(users) == 3)

        try db.execute("ALTER SEQUENCE lost_races RESTART")
        #expect(write([user("b1"), user("loser99"), user("b2")]) == [nil, "40P01", nil])
        #expect(
            try db.int64("SELECT last_value FROM lost_races")
                == Int64(GroupCommitWriter<PostgresWriteBackend>.raceAttempts))
        #expect(try db.int64(users) == 5)
    }

    @Test func nodesStartingTogetherMigrateOnceAndAgreeOnTheVersion() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let results = Recorder<String?>()
        for _ in 0..<4 {
            Thread.detachNewThread {
                do {
                    let store = try openPostgres(url: url)
                    store.close()
                    results.record(nil)
                } catch {
                    results.record("\(error)")
                }
            }
        }
        #expect(results.wait(for: 4) == [nil, nil, nil, nil])
        let db = try PostgresDatabase(options: PostgresStoreOptions(url: url))
        defer { db.close() }
        #expect(try db.int64("SELECT version FROM schema_version") == Int64(PostgresGatewayStore.latestSchemaVersion))
        #expect(try db.int64("SELECT count(*) FROM schema_version") == 1)
    }

    @Test func theSchemaMirrorsSQLitesVersions() {
        #expect(PostgresSchema.migrations.map(\.version) == SchemaMigrations.all.map(\.version))
    }

    @Test func aDatabaseFromANewerBuildIsRefused() throws {
        let url = try PostgresCluster.shared().createDatabase()
        try openPostgres(url: url).close()
        let db = try PostgresDatabase(options: PostgresStoreOptions(url: url))
        try db.execute("UPDATE schema_version SET version = 99")
        db.close()
        let error = #expect(throws: StorageError.self) { try openPostgres(url: url) }
        #expect(error?.message.contains("schema version 99 is newer than this build supports") == true)
    }

    @Test func errorsNeverShowThePassword() throws {
        let cluster = try PostgresCluster.shared()
        var options = PostgresStoreOptions(
            url: "postgresql://app:s3cret@localhost:1/none?host=\(cluster.directory)/missing")
        options.connectTimeoutSeconds = 2
        let error = #expect(throws: StorageError.self) { try PostgresGatewayStore(options: options) }
        #expect(error?.message.contains("s3cret") == false)
        #expect(error?.message.contains("app:***@localhost") == true)
        #expect(error?.isRetryable == true)
        #expect(PostgresStoreOptions(url: "host=db password=abc user=x").redactedURL == "host=db password=*** user=x")
    }

    @Test func writesQueuedBeforeCloseAreCommittedAndLaterOnesFail() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let store = try openPostgres(url: url)
        let recorder = Recorder<String?>()
        for offset in Int64(1)...200 { store.write([event("u", offset)]) { recorder.record($0.map { "\($0)" }) } }
        store.close()
        #expect(recorder.wait(for: 200).allSatisfy { $0 == nil })
        store.write([event("u", 201)]) { recorder.record($0.map { "\($0)" }) }
        #expect((recorder.wait(for: 201).last ?? nil)?.contains("closed") == true)
        #expect(throws: StorageError.self) { try store.events(userId: "u", after: 0, limit: 1) }
        let reopened = try openPostgres(url: url)
        defer { reopened.close() }
        #expect(try reopened.events(userId: "u", after: 0, limit: 1_000).map(\.offset) == Array(1...200))
    }
}
