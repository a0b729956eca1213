import Glibc
import Gateway

/// The PostgreSQL write connection as the group-commit writer drives it.
struct PostgresWriteBackend: RelationalWriteBackend {
    let db: PostgresDatabase
    var applier: RelationalWriteApplier<PostgresEngineWrites> { RelationalWriteApplier(engine: PostgresEngineWrites(db: db)) }
    var name: String { db.name }
    var isAutocommit: Bool { db.isAutocommit }
    func begin() throws(StorageError) { try db.execute("BEGIN") }
    func run(_ sql: String) throws(StorageError) { try db.execute(sql) }
    func apply(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) { try applier.apply(write, receipt: &receipt) }

    /// Takes the log heads of every user the batches append to, sorted by user id, before any batch runs: two
    /// writers' transactions then lock heads in the same order and never wait on each other in a cycle over them
    /// (a message appends to two logs; two nodes' group commits hold many). Heads missing yet are created first, as
    /// the append would (the log's highest offset), in the same order.
    func lockInOrder(_ batches: ArraySlice<[StoreWrite]>) throws(StorageError) {
        var users = Set<String>()
        for batch in batches { for case .appendEvent(let event) in batch { users.insert(event.userId) } }
        guard !users.isEmpty else { return }
        // A text[] literal: each id quoted, its quotes and backslashes escaped.
        let sorted = "{" + users.sorted().map { id in
            "\"" + id.flatMap { $0 == "\"" || $0 == "\\" ? ["\\", $0] : [$0] } + "\""
        }.joined(separator: ",") + "}"
        try db.query("""
            INSERT INTO event_log_heads (user_id, latest_offset)
            SELECT u, COALESCE((SELECT MAX("offset") FROM events WHERE user_id = u), 0)
            FROM unnest($1::text[]) AS u ORDER BY u
            ON CONFLICT (user_id) DO UPDATE SET latest_offset = event_log_heads.latest_offset
            """, [sorted])
    }

    func pruneEvents(before: Int64, keepLatest: Int) throws(StorageError) -> Int {
        try applier.pruneEvents(before: before, keepLatest: keepLatest)
    }

    func close() { db.close() }

    /// How long a commit whose reply was lost is asked after (its server may still be finishing it): 40 × 25 ms.
    static let commitStatusPolls = 40

    /// `COMMIT`, telling a commit whose reply was lost from one that did not happen: the link can break after the
    /// server committed and before its answer arrived, and reporting such a batch as failed invites a client to apply
    /// it twice. So the transaction's id is read first (one more round trip per transaction), and when `COMMIT`
    /// fails without an answer from the server (no SQLSTATE: the connection broke) the writer reconnects and asks
    /// `pg_xact_status` (again while it gets no answer, for up to a second): `committed` is a success, `aborted` or no
    /// answer within that time the error as before.
    func commit() throws(StorageError) {
        let xid = try db.query("SELECT pg_current_xact_id()::text").first?.optionalString(0)
        do {
            try db.execute("COMMIT")
        } catch where error.sqlstate == nil && xid != nil {
            for _ in 0..<Self.commitStatusPolls {
                switch try? db.query("SELECT pg_xact_status($1::xid8)", [xid]).first?.optionalString(0) {
                case "committed": return
                // The old session's COMMIT is still running on the server, or the question got no answer yet (the
                // writer is reconnecting): ask again within the budget.
                case "in progress", nil: usleep(25_000)
                default: throw error
                }
            }
            throw error
        }
    }
}
