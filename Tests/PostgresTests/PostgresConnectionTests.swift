import Postgres
import Testing
import TestSupport

/// The libpq client against a real PostgreSQL 15 started by the tests (one database per test).
@Suite struct PostgresConnectionTests {
    let connection: PostgresConnection

    init() throws {
        let url = try PostgresCluster.shared().createDatabase()
        connection = try PostgresConnection(url: url)
    }

    @Test func parametersRoundTripEveryTypeIncludingNullsAndRawBytes() throws {
        try connection.execute("CREATE TABLE t (s TEXT, n BIGINT, b BOOLEAN, raw BYTEA)")
        let raw: [UInt8] = [0, 1, 0x5c, 0x78, 0xff, 39, 0]   // NULs, a backslash, "x", a quote
        let inserted = try connection.query("INSERT INTO t VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)",
                                            ["Zoë 'quoted' \u{1F600}", Int64.min, true, raw, nil, Int64.max, false, [UInt8]()])
        #expect(inserted.affected == 2)
        let rows = try connection.query("SELECT s, n, b, raw FROM t ORDER BY n")
        #expect(rows.count == 2)
        #expect(rows[0].string(0) == "Zoë 'quoted' \u{1F600}")
        #expect(rows[0].int64(1) == Int64.min)
        #expect(rows[0].bool(2))
        #expect(rows[0].bytes(3) == raw)
        #expect(rows[1].optionalString(0) == nil)
        #expect(rows[1].int64(1) == Int64.max)
        #expect(!rows[1].bool(2))
        #expect(rows[1].optionalBytes(3) == [])
    }

    @Test func textWithANulCharacterIsRefusedNotCut() throws {
        let error = #expect(throws: PostgresError.self) { try connection.query("SELECT $1::text", ["a\u{0}b"]) }
        #expect(error?.sqlstate == "22021")
        #expect(try connection.query("SELECT $1::bytea", [Array("a\u{0}b".utf8)])[0].bytes(0) == [97, 0, 98])
    }

    @Test func aServerErrorCarriesItsSqlstateAndTheConnectionStaysUsable() throws {
        try connection.execute("CREATE TABLE k (id TEXT PRIMARY KEY)")
        try connection.query("INSERT INTO k VALUES ($1)", ["a"])
        let error = #expect(throws: PostgresError.self) { try connection.query("INSERT INTO k VALUES ($1)", ["a"]) }
        #expect(error?.sqlstate == PostgresError.uniqueViolation)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("duplicate key") == true)
        #expect(try connection.query("SELECT count(*) FROM k")[0].int64(0) == 1)
    }

    @Test func aFailedTransactionLeavesNothingAndReportsFailedUntilRolledBack() throws {
        try connection.execute("CREATE TABLE k (id TEXT PRIMARY KEY)")
        #expect(throws: PostgresError.self) {
            try connection.transaction { () throws(PostgresError) in
                try connection.query("INSERT INTO k VALUES ($1)", ["a"])
                try connection.query("INSERT INTO k VALUES ($1)", ["a"])
            }
        }
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.query("SELECT count(*) FROM k")[0].int64(0) == 0)

        try connection.execute("BEGIN")
        _ = try? connection.query("SELECT 1/0")
        #expect(connection.transactionStatus == .failed)
        try connection.execute("ROLLBACK")
        #expect(connection.transactionStatus == .idle)
    }

    @Test func aRefusedConnectionIsARetryableClientError() throws {
        let missing = try TemporaryPath()
        let error = #expect(throws: PostgresError.self) {
            try PostgresConnection(url: "postgresql:///none?host=\(missing.path)&port=1", connectTimeoutSeconds: 2)
        }
        #expect(error?.sqlstate == nil)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("cannot connect") == true)
    }

    @Test func aStatementTimeoutCancelsALongStatement() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let limited = try PostgresConnection(url: url, statementTimeoutMs: 50)
        let error = #expect(throws: PostgresError.self) { try limited.query("SELECT pg_sleep(5)") }
        #expect(error?.sqlstate == "57014")   // query_canceled
    }
}
