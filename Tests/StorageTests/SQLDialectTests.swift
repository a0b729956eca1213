import Testing
@testable import Storage

/// A shared statement's template becomes each engine's SQL: parameters, tokens, and quoted text left alone.
@Suite struct SQLDialectTests {
    @Test func placeholdersBecomeEachEnginesParameters() {
        let template = "SELECT a FROM t WHERE b = ?1 AND c = ?12 AND d IS ?2"
        #expect(SQLiteDialect.sql(template) == template)
        #expect(PostgresDialect.sql(template) == "SELECT a FROM t WHERE b = $1 AND c = $12 AND d IS $2")
    }

    @Test func tokensBecomeEachEnginesSpelling() {
        let template = "SELECT {greatest}(x, ?1) FROM t ORDER BY {rowOrder} LIMIT ?2 {skipLocked}"
        #expect(SQLiteDialect.sql(template) == "SELECT max(x, ?1) FROM t ORDER BY rowid LIMIT ?2 ")
        #expect(PostgresDialect.sql(template) == "SELECT GREATEST(x, $1) FROM t ORDER BY row_order LIMIT $2 FOR UPDATE SKIP LOCKED")
        #expect(SQLiteDialect.sql("SELECT 1 FROM g WHERE id = ?1 {forUpdate}") == "SELECT 1 FROM g WHERE id = ?1 ")
        #expect(PostgresDialect.sql("SELECT 1 FROM g WHERE id = ?1 {forUpdate}") == "SELECT 1 FROM g WHERE id = $1 FOR UPDATE")
    }

    @Test func sequencesAndTakenKeys() {
        #expect(SQLiteDialect.sql("VALUES ({seq:sessions})") == "VALUES ((SELECT COALESCE(MAX(seq), 0) + 1 FROM sessions))")
        #expect(PostgresDialect.sql("VALUES ({seq:sessions})") == "VALUES (nextval('sessions_seq'))")
        #expect(SQLiteDialect.sql("INSERT INTO m (id) VALUES (?1) {ifAbsent:id}") == "INSERT INTO m (id) VALUES (?1) ")
        #expect(PostgresDialect.sql("INSERT INTO m (id) VALUES (?1) {ifAbsent:id}")
                == "INSERT INTO m (id) VALUES ($1) ON CONFLICT (id) DO NOTHING")
    }

    @Test func quotedTextAndUnknownBracesStayAsWritten() {
        let template = "SELECT '?1 {rowOrder}', \"{greatest}\" FROM t WHERE x ~ '^a{2}' AND y = ? AND z = '{unknown}' {unknown}"
        #expect(PostgresDialect.sql(template)
                == "SELECT '?1 {rowOrder}', \"{greatest}\" FROM t WHERE x ~ '^a{2}' AND y = ? AND z = '{unknown}' {unknown}")
        #expect(SQLiteDialect.sql(template) == template)
    }
}
