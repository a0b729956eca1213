import Glibc
import Gateway
import Synchronization

/// What the group-commit writer needs of a database: transactions, savepoints and applying one `StoreWrite`.
/// Implemented for SQLite (`SQLiteWriteBackend`) and PostgreSQL (`PostgresWriteBackend`); only the writer thread
/// touches it once the writer started.
protocol GroupCommitBackend {
    /// Names the database in error messages (a file path, or a PostgreSQL URL without its password).
    var name: String { get }
    /// Whether no transaction is open (the engine may roll back by itself after some errors, or the link broke).
    var isAutocommit: Bool { get }
    /// Starts the write transaction (`BEGIN IMMEDIATE` on SQLite: take the write lock at once).
    func begin() throws(StorageError)
    /// Runs a statement without parameters or results (pragmas, maintenance; transactions and savepoints have their
    /// own calls below).
    func run(_ sql: String) throws(StorageError)
    /// Applies one write inside the open transaction, noting what the store decided (an append's offset) in
    /// `receipt`; a lost decision throws a `StorageError` carrying the conflict.
    func apply(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError)
    /// Called once the transaction began, with the batches about to be applied in it: takes the row locks they will
    /// need in one fixed order, so two writers never wait on each other's rows in a cycle (nothing by default).
    func lockInOrder(_ batches: ArraySlice<[StoreWrite]>) throws(StorageError)
    /// Commits the open transaction; throws only when it is not stored (`COMMIT` by default).
    func commit() throws(StorageError)
    /// Rolls the open transaction back (`ROLLBACK`).
    func rollBack() throws(StorageError)
    /// Opens the savepoint one batch is applied in (`SAVEPOINT batch`).
    func beginBatch() throws(StorageError)
    /// Keeps the batch's changes in the transaction (`RELEASE batch`).
    func releaseBatch() throws(StorageError)
    /// Undoes just the batch's changes; the transaction stays open (`ROLLBACK TO batch`, then `RELEASE batch`).
    func rollBackBatch() throws(StorageError)
    /// Runs one transaction of the writer (from `begin` to its commit or rollback) in `body`. The SQLite backend
    /// holds the writer here while its checkpointer resets the WAL (`WALCheckpointer`); by default it just runs `body`.
    func takingTurn<R>(_ body: () -> R) -> R
    func close()
}

extension GroupCommitBackend {
    func commit() throws(StorageError) { try run("COMMIT") }
    func rollBack() throws(StorageError) { try run("ROLLBACK") }
    func beginBatch() throws(StorageError) { try run("SAVEPOINT batch") }
    func releaseBatch() throws(StorageError) { try run("RELEASE batch") }
    func rollBackBatch() throws(StorageError) {
        try run("ROLLBACK TO batch")
        try run("RELEASE batch")
    }
    func lockInOrder(_ batches: ArraySlice<[StoreWrite]>) throws(StorageError) {}
    func takingTurn<R>(_ body: () -> R) -> R { body() }
}

/// The single writer thread that owns the write connection and commits in groups.
///
/// `submit` may be called from any thread; it only appends to a queue. A job carries one or more batches (the hub
/// hands over everything one loop iteration produced as one job) and one completion for all of them. The thread
/// takes everything queued since its last commit, applies consecutive batches in one transaction (`BEGIN … COMMIT`, at
/// most `maxBatchWrites` writes; a larger batch goes alone), each batch inside its own savepoint so a failing batch
/// is rolled back by itself and only its result is the error. If the transaction as a whole fails (BEGIN, COMMIT,
/// or an error after which the engine rolled everything back) every batch in it gets the error. Completions then run on
/// the writer thread in submission order, after the commit returned — i.e. after the data is visible to every new
/// reader — one call per job with one result per batch: a caller that posts the results back to its loop pays one
/// wake-up per job, not per batch.
///
/// The queue is unbounded: back-pressure is the caller's business (completions tell it how far behind we are).
final class GroupCommitWriter<Backend: GroupCommitBackend>: @unchecked Sendable {
    // @unchecked: the queue state is guarded by `queueLock` (a condition variable, which Mutex lacks); the rest is writer-thread only.
    enum Job {
        /// Batches in order and the completion that gets their results (the receipt, or the error), after the commit.
        case batches([[StoreWrite]], @Sendable ([Result<StoreReceipt, StorageError>]) -> Void)
        /// Runs alone in its own transaction, between the batches queued before and after it.
        case maintenance((Backend) throws(StorageError) -> Int, BlockingReply<Result<Int, StorageError>>)
    }

    private let connection: Backend
    private let maxBatchWrites: Int
    private let queueLock = ConditionLock()
    private var queue: [Job] = []            // guarded by queueLock
    private var stopping = false             // guarded by queueLock
    private var idle = false                 // guarded by queueLock: the thread sleeps and needs a signal
    private var thread: pthread_t?
    private let commits = Atomic<Int>(0)
    private let raceRetries = Atomic<Int>(0)

    /// Takes ownership of `connection`: from `start()` on only the writer thread touches it, and closes it.
    init(connection: Backend, maxBatchWrites: Int) {
        self.connection = connection
        self.maxBatchWrites = max(1, maxBatchWrites)
    }

    /// Transactions committed so far.
    var commitCount: Int { commits.load(ordering: .relaxed) }
    /// Batches applied again after losing a deadlock or serialization check (`raceAttempts`).
    var raceRetryCount: Int { raceRetries.load(ordering: .relaxed) }

    func start() throws(StorageError) {
        switch startThread({ self.run() }) {
        case .success(let tid): thread = tid
        case .failure(let error): throw StorageError("\(connection.name): cannot start the writer thread (errno \(error.errno))")
        }
    }

    /// Queues a job; false once `stop()` began (the job is not queued).
    func submit(_ job: Job) -> Bool {
        queueLock.lock()
        guard !stopping else { queueLock.unlock(); return false }
        queue.append(job)
        let wake = idle
        queueLock.unlock()
        // Signal only a sleeping thread: under load the writer is busy committing and needs no syscall.
        if wake { queueLock.signal() }
        return true
    }

    /// Refuses new jobs, lets the thread finish every queued one, and waits for it to exit. Idempotent: only the
    /// first call waits. Called on the writer thread itself (from a completion) it only asks the thread to stop,
    /// since joining would deadlock.
    func stop() {
        let alreadyStopping = queueLock.withLock { () -> Bool in
            defer { stopping = true }
            return stopping
        }
        queueLock.signal()
        guard !alreadyStopping, let thread else { return }
        if pthread_equal(thread, pthread_self()) != 0 {
            // The thread exits by itself after this round of completions; nobody will join it.
            pthread_detach(thread)
            return
        }
        pthread_join(thread, nil)
    }

    private func run() {
        nameCurrentThread("sb-writer")
        while true {
            queueLock.lock()
            while queue.isEmpty && !stopping {
                idle = true
                queueLock.wait()
                idle = false
            }
            let jobs = queue
            queue.removeAll(keepingCapacity: true)
            let exit = jobs.isEmpty && stopping
            queueLock.unlock()
            if exit { break }
            process(jobs)
        }
        connection.close()
    }

    private func process(_ jobs: [Job]) {
        var index = 0
        while index < jobs.count {
            if case .maintenance(let body, let reply) = jobs[index] {
                reply.fulfil(connection.takingTurn { runMaintenance(body) })
                index += 1
                continue
            }
            // Every batch of the consecutive batch jobs, flattened, then committed in groups of at most
            // `maxBatchWrites` writes; each job's completion runs once all of its batches have a result.
            var completions: [(@Sendable ([Result<StoreReceipt, StorageError>]) -> Void, Range<Int>)] = []
            var batches: [[StoreWrite]] = []
            while index < jobs.count, case .batches(let jobBatches, let completion) = jobs[index] {
                completions.append((completion, batches.count..<batches.count + jobBatches.count))
                batches += jobBatches
                index += 1
            }
            var results: [Result<StoreReceipt, StorageError>] = []
            results.reserveCapacity(batches.count)
            var start = 0
            while start < batches.count {
                var end = start
                var writes = 0
                while end < batches.count, end == start || writes + batches[end].count <= maxBatchWrites {
                    writes += batches[end].count
                    end += 1
                }
                results += connection.takingTurn { commit(batches[start..<end]) }
                start = end
            }
            for (completion, range) in completions { completion(Array(results[range])) }
        }
    }

    /// Attempts at a batch that lost a deadlock or a serialization check (SQLSTATE 40P01, 40001) before its error is
    /// reported: the engine rolled back this writer's statement to break the cycle, and the batch, applied again a
    /// moment later, normally goes through.
    static var raceAttempts: Int { 6 }

    /// The random wait (µs) before attempt `attempt + 1` of a batch that lost a race: 1…2^(attempt−1) × 5 ms, so the
    /// other writer (woken by the rollback) takes its rows and commits before this one comes back, and two writers
    /// that keep colliding fall out of step. At most 5 + 10 + 20 + 40 + 80 = 155 ms over all attempts.
    static func raceBackoffMicroseconds(attempt: Int) -> UInt32 {
        UInt32.random(in: 1_000...UInt32(5_000 << min(attempt - 1, 4)))
    }

    /// Whether `error` is a lost deadlock or serialization check, after which the same batch may simply be retried.
    static func lostRace(_ error: StorageError) -> Bool { error.sqlstate == "40P01" || error.sqlstate == "40001" }

    /// Applies the batches in one transaction; returns each batch's outcome (its receipt once committed).
    ///
    /// A batch that lost a race (`lostRace`) is retried, up to `raceAttempts` times: first the transaction ends,
    /// committing the batches before it (their row locks may be what the other writer waits for), then after a
    /// random wait (`raceBackoffMicroseconds`) a new transaction starts with the batch again and goes on with the rest.
    /// Batches thus still commit in submission order. Each transaction starts by taking the row locks of the batches
    /// left in one order (`lockInOrder`), which is what keeps such races rare.
    private func commit(_ batches: ArraySlice<[StoreWrite]>) -> [Result<StoreReceipt, StorageError>] {
        var results = [Result<StoreReceipt, StorageError>](repeating: .success(StoreReceipt()), count: batches.count)
        var pending: [Int] = []   // batches applied in the open transaction, not yet committed
        var inTransaction = false
        for (i, batch) in batches.enumerated() {
            var attempt = 1
            while true {
                do throws(StorageError) {
                    if !inTransaction {
                        try connection.begin()
                        inTransaction = true
                        do {
                            try connection.lockInOrder(batches[(batches.startIndex + i)...])
                        } catch {
                            try? connection.rollBack()   // nothing applied yet; the statement's error aborted it
                            inTransaction = false
                            throw error
                        }
                    }
                    results[i] = .success(try applyInSavepoint(batch))
                    pending.append(i)
                } catch {
                    if inTransaction && connection.isAutocommit {
                        // The engine rolled the whole transaction back (e.g. disk full, connection lost): earlier
                        // batches are lost too.
                        for j in pending { results[j] = .failure(error.prefixed("transaction rolled back: ")) }
                        pending.removeAll()
                        inTransaction = false
                    }
                    if Self.lostRace(error) && attempt < Self.raceAttempts {
                        if inTransaction { end(&pending, &results) }
                        inTransaction = false
                        usleep(Self.raceBackoffMicroseconds(attempt: attempt))
                        attempt += 1
                        raceRetries.add(1, ordering: .relaxed)
                        continue
                    }
                    results[i] = .failure(error)
                }
                break
            }
        }
        if inTransaction { end(&pending, &results) }
        return results
    }

    /// Ends the open transaction: commits the `pending` batches (each gets the error should COMMIT fail), or rolls
    /// back when there are none.
    private func end(_ pending: inout [Int], _ results: inout [Result<StoreReceipt, StorageError>]) {
        defer { pending.removeAll() }
        guard !pending.isEmpty else {
            try? connection.rollBack()
            return
        }
        do {
            try connection.commit()
            commits.add(1, ordering: .relaxed)
        } catch {
            if !connection.isAutocommit { try? connection.rollBack() }
            for j in pending { results[j] = .failure(error) }
        }
    }

    private func applyInSavepoint(_ batch: [StoreWrite]) throws(StorageError) -> StoreReceipt {
        try connection.beginBatch()
        var receipt = StoreReceipt()
        do {
            for write in batch { try connection.apply(write, receipt: &receipt) }
            try connection.releaseBatch()
            return receipt
        } catch {
            if !connection.isAutocommit {
                // Undo just this batch; the transaction stays open for the others. Should that fail, the whole
                // transaction goes (the caller sees autocommit and fails every batch in it): never a partial batch.
                do {
                    try connection.rollBackBatch()
                } catch {
                    try? connection.rollBack()
                }
            }
            throw error
        }
    }

    private func runMaintenance(_ body: (Backend) throws(StorageError) -> Int) -> Result<Int, StorageError> {
        do {
            try connection.begin()
            let value = try body(connection)
            try connection.commit()
            commits.add(1, ordering: .relaxed)
            return .success(value)
        } catch {
            if !connection.isAutocommit { try? connection.rollBack() }
            return .failure(error)
        }
    }
}

extension GroupCommitWriter {
    /// Runs `body` on the writer thread alone in its own transaction, after every batch queued before it, and returns
    /// what it returned once committed; blocks the caller. nil when the writer is stopped.
    func runAlone<R: Sendable>(_ body: @escaping (Backend) throws(StorageError) -> R) throws(StorageError) -> R? {
        let result = BlockingReply<R>()
        let reply = BlockingReply<Result<Int, StorageError>>()
        guard submit(.maintenance({ backend throws(StorageError) in
            result.fulfil(try body(backend))
            return 0
        }, reply)) else { return nil }
        _ = try reply.wait().get()   // the commit's outcome: a rolled-back result is never returned
        return result.wait()
    }
}

