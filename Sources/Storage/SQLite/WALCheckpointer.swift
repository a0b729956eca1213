import Glibc
import Synchronization

/// Copies the WAL into the database file on its own connection and thread (`sb-checkpoint`), so that no commit runs
/// a checkpoint or waits for one.
///
/// The write connection runs with `wal_autocheckpoint = 0`; its WAL hook hands the WAL's length after every commit to
/// `walCommitted(frames:)` on the writer thread. Every `checkpointPages` frames written, that asks for a `PASSIVE`
/// checkpoint: it copies every frame no reader still needs, takes no lock a writer or reader holds, and runs beside
/// the writer's commits (SQLite lets one checkpoint and one write transaction work at once). It ends with the same
/// syncs a checkpoint inside a commit had (WAL, then database file, per `synchronous`).
///
/// Resetting the WAL: SQLite writes the WAL from its beginning again only when a write transaction begins with every
/// frame copied and no reader on the WAL (readers that began before the last frame was copied hold it; later ones
/// read the database file alone). Under steady commits a passive checkpoint never ends with every frame copied —
/// commits land while it copies —, so the WAL would grow without bound. Once it passed `resetPages`, the request is a
/// reset: passive checkpoints first (the bulk, beside the commits, then the frames committed meanwhile, up to four
/// rounds until fewer than `checkpointPages / 64` are left); if frames are still left behind, the checkpointer then
/// holds the writer between two transactions (`takingTurn`) and runs a `RESTART` checkpoint, which copies that tail,
/// syncs, and waits at most `resetWaitMs` for readers still on the WAL; the writer's next transaction then starts the
/// WAL over (and cuts the file back to `journal_size_limit`). Commits wait for that last step only. A reader that stays
/// longer (another process) makes the reset fail; the WAL then grows until the next attempt, `checkpointPages` later.
///
/// `stop()` lets a running checkpoint finish, drops a pending request and closes the connection; the store stops the
/// writer first, so a writer held for a reset is always let go.
final class WALCheckpointer: @unchecked Sendable {
    // @unchecked: the request, gate and statistics are guarded by `lock` (a condition variable, which Mutex lacks); the
    // connection is the checkpointer thread's once started; the `writer…` fields are the writer thread's alone.

    /// What the checkpointer has done so far (tests, profiles).
    struct Statistics: Sendable {
        /// Checkpoints run, passive and restart (a reset runs up to five passive ones, then one restart).
        var checkpoints = 0
        /// Resets (the writer held) whose `RESTART` checkpoint copied every frame with no reader left on the WAL. A
        /// passive checkpoint that copied every frame needs none: the writer's next transaction starts the WAL over.
        var resets = 0
        /// Checkpoints that could not take a lock they needed, or found readers past `resetWaitMs`.
        var busy = 0
        /// The last checkpoint that failed, as text (I/O error, …); the next request tries again.
        var lastError: String?
        /// The checkpoint connection's copies into the database file and the `pwrite`s they became (`sb-wal` VFS).
        var writes = GatheredWrites()
    }

    let checkpointPages: Int
    let resetPages: Int
    /// A reset holds the writer once the frames not yet copied are this few (or after a few passive rounds).
    private var resetTailPages: Int { max(16, checkpointPages / 64) }
    private let connection: SQLiteConnection
    private let resetWaitMs: Int32
    private let busyTimeoutMs: Int32
    private let lock = ConditionLock()
    private var pending: WALCheckpointMode?   // guarded by lock; `.restart` = a reset
    private var running = false                // guarded by lock: a request taken and not yet done
    private var stopping = false               // guarded by lock
    private var exited = false                 // guarded by lock: the thread left its loop and closed the connection
    private var resetWanted = false            // guarded by lock: the writer must not begin a transaction
    private var writerInTurn = false           // guarded by lock: the writer is inside a transaction
    private var writerHeld = false             // guarded by lock: the writer waits for a reset to end
    private var statistics = Statistics()      // guarded by lock
    private var willCheckpoint: (@Sendable (WALCheckpointMode) -> Void)?   // guarded by lock; tests
    private var thread: pthread_t?
    private var writerLastFrames = 0           // writer thread: the WAL's length after the last commit
    private var writerFramesSinceRequest = 0   // writer thread: frames written since the last request
    private let walLength = Atomic<Int>(0)

    /// Opens the checkpoint connection on `options.path` (read-write, on the write connection's VFS so that its copies
    /// into the database file are gathered the same way, syncing as `options.synchronous` says); `start()` starts
    /// the thread, which from then on is the only one to touch it.
    init(options: SQLiteStoreOptions, resetWaitMs: Int = 50) throws(StorageError) {
        connection = try SQLiteConnection(path: options.path, readOnly: false, busyTimeoutMs: options.busyTimeoutMs,
                                          gatherWalWrites: options.gatherWalWrites)
        do throws(StorageError) {
            // A checkpoint syncs the WAL before copying and the database file after, as it did on the write connection.
            try connection.execute("PRAGMA synchronous = \(options.synchronous == .full ? "FULL" : "NORMAL")")
            try connection.execute("PRAGMA cache_size = -64")   // a checkpoint copies frames; it reads no pages
        } catch {
            connection.close()
            throw error
        }
        checkpointPages = max(1, options.walCheckpointPages)
        resetPages = max(checkpointPages, options.walResetPages)
        busyTimeoutMs = Int32(clamping: options.busyTimeoutMs)
        self.resetWaitMs = Int32(clamping: max(1, resetWaitMs))
    }

    /// The WAL's length in frames after the write connection's last commit.
    var walFrames: Int { walLength.load(ordering: .relaxed) }

    var currentStatistics: Statistics { lock.withLock { statistics } }

    func start() throws(StorageError) {
        switch startThread({ self.run() }) {
        case .success(let tid): thread = tid
        case .failure(let error): throw StorageError("\(connection.path): cannot start the checkpoint thread (errno \(error.errno))")
        }
    }

    /// Lets a running checkpoint finish (a reset releases the writer), drops a pending request, ends the thread and
    /// closes the connection. Idempotent: a second call waits for the first one's thread to have exited.
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopping = true }
            return !stopping
        }
        lock.broadcast()
        guard let thread else {
            if first { connection.close() }
            return
        }
        if first {
            pthread_join(thread, nil)
        } else {
            waitUntil { $0.exited }
        }
    }

    // MARK: writer thread

    /// The write connection's WAL hook: counts the frames written since the last request and asks for a checkpoint
    /// every `checkpointPages` of them (a reset once the WAL is `resetPages` long). Writer thread only; cheap unless a
    /// request is due.
    func walCommitted(frames: Int) {
        // A shorter WAL than after the last commit: the writer started it over, and these frames are all new.
        writerFramesSinceRequest += frames >= writerLastFrames ? frames - writerLastFrames : frames
        writerLastFrames = frames
        walLength.store(frames, ordering: .relaxed)
        guard writerFramesSinceRequest >= checkpointPages else { return }
        writerFramesSinceRequest = 0
        request(frames >= resetPages ? .restart : .passive)
    }

    /// Runs one transaction of the writer in `body`, after waiting for a reset the checkpointer is running.
    func takingTurn<R>(_ body: () -> R) -> R {
        lock.lock()
        if resetWanted {
            writerHeld = true
            lock.broadcast()
            while resetWanted { lock.wait() }
            writerHeld = false
        }
        writerInTurn = true
        lock.unlock()
        defer {
            lock.lock()
            writerInTurn = false
            let wake = resetWanted
            lock.unlock()
            if wake { lock.broadcast() }
        }
        return body()
    }

    private func request(_ mode: WALCheckpointMode) {
        lock.lock()
        guard !stopping else { lock.unlock(); return }
        if pending != .restart { pending = mode }
        lock.unlock()
        lock.broadcast()
    }

    // MARK: tests

    /// Blocks until no request is pending or running (or the thread stopped); returns the statistics then.
    @discardableResult
    func waitUntilIdle() -> Statistics {
        waitUntil { ($0.pending == nil && !$0.running) || $0.exited }
        return currentStatistics
    }

    /// Whether the thread left its loop and closed its connection.
    var hasExited: Bool { lock.withLock { exited } }

    /// Calls `body` on the checkpointer thread before each checkpoint (a test holds a checkpoint there).
    func beforeEachCheckpoint(_ body: @escaping @Sendable (WALCheckpointMode) -> Void) {
        lock.withLock { willCheckpoint = body }
    }

    /// Blocks until no request is pending or running, or a reset holds (or is about to hold) the writer.
    func waitUntilIdleOrResetting() { waitUntil { ($0.pending == nil && !$0.running) || $0.resetWanted || $0.exited } }

    /// Whether a reset holds (or is about to hold) the writer.
    var isResetting: Bool { lock.withLock { resetWanted } }

    /// Blocks until the writer waits for a reset to end.
    func waitUntilWriterHeld() { waitUntil { $0.writerHeld } }

    /// Blocks until `stop()` was called.
    func waitUntilStopping() { waitUntil { $0.stopping } }

    private func waitUntil(_ done: (WALCheckpointer) -> Bool) {
        lock.lock()
        while !done(self) { lock.wait() }
        lock.unlock()
    }

    // MARK: checkpointer thread

    private func run() {
        nameCurrentThread("sb-checkpoint")
        while true {
            lock.lock()
            while pending == nil && !stopping { lock.wait() }
            guard !stopping, let mode = pending else { lock.unlock(); break }
            pending = nil
            running = true
            lock.unlock()
            checkpoint(mode)
            lock.withLock { running = false }
            lock.broadcast()
        }
        connection.close()
        lock.withLock {
            exited = true
            pending = nil
        }
        lock.broadcast()
    }

    /// One request: a passive checkpoint, and for a reset then the `RESTART` one with the writer held.
    private func checkpoint(_ mode: WALCheckpointMode) {
        // Every frame copied: the writer's next transaction starts the WAL over by itself (unless a reader is on it).
        // So is a reset asked for before the last one took effect.
        guard var passive = runCheckpoint(.passive), mode == .restart else { return }
        // Passive checkpoints again while each copies what the commits added during the last one (fewer every time),
        // so the writer is held for a short tail only.
        for _ in 0..<4 where !passive.busy && passive.walFrames - passive.copiedFrames > resetTailPages {
            guard let next = runCheckpoint(.passive) else { return }
            passive = next
        }
        guard !passive.busy, passive.copiedFrames < passive.walFrames, passive.walFrames >= resetPages else { return }
        lock.lock()
        resetWanted = true
        lock.broadcast()
        while writerInTurn { lock.wait() }
        lock.unlock()
        // Readers still on the WAL are waited for at most `resetWaitMs`: the writer waits as long.
        connection.setBusyTimeout(resetWaitMs)
        _ = runCheckpoint(.restart)
        connection.setBusyTimeout(busyTimeoutMs)
        lock.withLock { resetWanted = false }
        lock.broadcast()
    }

    /// Runs one checkpoint and records it; nil when it failed with an error.
    private func runCheckpoint(_ mode: WALCheckpointMode) -> WALCheckpointResult? {
        lock.withLock { willCheckpoint }?(mode)
        let outcome: Result<WALCheckpointResult, StorageError>
        do throws(StorageError) {
            outcome = .success(try connection.checkpoint(mode))
        } catch {
            outcome = .failure(error)
        }
        let writes = connection.gatheredWrites
        lock.withLock {
            statistics.checkpoints += 1
            statistics.writes = writes
            switch outcome {
            case .success(let result):
                if result.busy { statistics.busy += 1 }
                if mode == .restart && !result.busy && result.copiedFrames == result.walFrames { statistics.resets += 1 }
            case .failure(let error):
                statistics.lastError = error.message
            }
        }
        return try? outcome.get()
    }
}
