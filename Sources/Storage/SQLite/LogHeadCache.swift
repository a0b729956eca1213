/// The highest offset of each user's log as the write connection last stored it, so that an append takes the next
/// offset without probing the log first (two B-tree descents per event: the log's last row and its emptied-log
/// head). Writer thread only.
///
/// It only ever holds what this connection wrote or read inside a transaction, in three layers that follow the
/// transaction: the current batch's savepoint, the open transaction, and what was committed. A batch rolled back to
/// its savepoint, or a transaction that did not commit, drops its layer, so an offset that was never stored is never
/// handed out again as taken (no hole). Another connection that commits to the file (a second process, a tool) makes
/// SQLite's `data_version` move, and the next transaction then forgets everything (`SQLiteWriteBackend.begin`).
/// Pruning never lowers a log's highest offset (it keeps the newest events, or saves the head of a log it empties), so
/// it needs no invalidation.
///
/// Bounded: past `capacity` users the committed layer starts over (a forgotten user costs one probe).
final class LogHeadCache {
    let capacity: Int
    private var committed: [String: Int64] = [:]
    private var transaction: [String: Int64] = [:]
    private var batch: [String: Int64] = [:]

    init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// The highest offset of `userId`'s log as stored in this transaction, or nil when unknown (then probe).
    func latest(_ userId: String) -> Int64? {
        batch[userId] ?? transaction[userId] ?? committed[userId]
    }

    /// `offset` is now the highest of `userId`'s log, inside the current batch (or the probe just read it).
    func noteLatest(_ userId: String, _ offset: Int64) {
        batch[userId] = offset
    }

    /// A savepoint opened: what follows belongs to a new batch.
    func batchBegan() { batch.removeAll(keepingCapacity: true) }

    /// The batch's savepoint was released: its offsets are part of the transaction.
    func batchReleased() {
        for (user, offset) in batch { transaction[user] = offset }
        batch.removeAll(keepingCapacity: true)
    }

    /// The batch was rolled back to its savepoint: its offsets were never stored.
    func batchRolledBack() { batch.removeAll(keepingCapacity: true) }

    /// The transaction committed: its offsets are stored.
    func transactionCommitted() {
        batchReleased()
        if committed.count + transaction.count > capacity { committed.removeAll(keepingCapacity: true) }
        for (user, offset) in transaction { committed[user] = offset }
        transaction.removeAll(keepingCapacity: true)
    }

    /// The transaction did not commit (rolled back, or it failed): nothing of it is stored.
    func transactionDropped() {
        batch.removeAll(keepingCapacity: true)
        transaction.removeAll(keepingCapacity: true)
    }

    /// Another connection changed the file: nothing known is sure any more.
    func forgetAll() {
        transactionDropped()
        committed.removeAll()
    }

    /// Users whose head is known (committed layer), for tests.
    var count: Int { committed.count }
}
