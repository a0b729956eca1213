import CCurl
import Glibc
import Metrics
import Synchronization

/// Runs HTTP requests for the push clients on ONE dedicated thread driving a libcurl multi handle:
/// HTTP/2 multiplexing over persistent connections (`CURLPIPE_MULTIPLEX`), no event-loop blocking.
///
/// Threading: ``submit(_:completion:)`` may be called from any thread, including from a completion;
/// it appends to a locked queue and wakes the thread with `curl_multi_wakeup`. Completions run ON
/// THE DISPATCHER THREAD, one at a time, in the order transfers finish: they must be short and must
/// never block; callers hop back to their own event loop. At most `maxInFlight` transfers run at
/// once; the rest wait in the queue (unbounded: the outbox above bounds it).
///
/// ``shutdown()`` fails queued and running transfers with `.failure("dispatcher stopped")`, then
/// joins the thread. Deinit without shutdown leaks the thread, so always call it.
public final class PushDispatcher: @unchecked Sendable {
    /// Response bodies are cut at this size; provider replies are a few hundred bytes.
    public static let maximumResponseBytes = 64 * 1024

    private struct Job {
        let request: PushHTTPRequest
        let completion: @Sendable (PushTransportResult) -> Void
    }

    private struct Shared {
        var queue: [Job] = []
        var stopping = false
    }

    /// The maximum number of transfers running at once.
    public let maxInFlight: Int
    private let multi: UnsafeMutableRawPointer
    private let shared = Mutex(Shared())
    private let thread = Mutex<pthread_t?>(nil)
    // Touched only by the dispatcher thread.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private let completedCount = Atomic<Int>(0)
    /// HTTP requests to the providers, from started to answered (or failed), whatever the answer.
    public let requestSeconds = Histogram(bounds: Histogram.latencyBounds, unitsPerSecond: 1_000_000)

    private static let globalInit: Bool = curl_global_init(CCURL_GLOBAL_DEFAULT) == CURLE_OK

    /// Creates the multi handle and starts the thread.
    /// - Parameter maxInFlight: concurrent transfers (clamped to at least 1); one HTTP/2 connection
    ///   carries many of them (APNs allows about 1000 streams per connection).
    /// - Throws: ``PushError`` when libcurl cannot initialise or the thread cannot start.
    public init(maxInFlight: Int = 100) throws(PushError) {
        guard PushDispatcher.globalInit, let multi = curl_multi_init() else {
            throw PushError("libcurl could not be initialised")
        }
        self.maxInFlight = max(1, maxInFlight)
        self.multi = multi
        _ = ccurl_multi_set_long(multi, CURLMOPT_PIPELINING, CCURL_PIPE_MULTIPLEX)
        let context = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { raw in
            let dispatcher = Unmanaged<PushDispatcher>.fromOpaque(raw!).takeRetainedValue()
            dispatcher.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<PushDispatcher>.fromOpaque(context).release()
            curl_multi_cleanup(multi)
            throw PushError("cannot start the push dispatcher thread (errno \(rc))")
        }
        thread.withLock { $0 = tid }
    }

    /// Transfers finished so far (any result); for metrics and tests.
    public var completedTransfers: Int { completedCount.load(ordering: .relaxed) }

    /// Queues `request`; `completion` later runs exactly once on the dispatcher thread. After
    /// ``shutdown()`` began it runs at once on the caller's thread with `.failure`.
    public func submit(_ request: PushHTTPRequest, completion: @escaping @Sendable (PushTransportResult) -> Void) {
        let accepted = shared.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.queue.append(Job(request: request, completion: completion))
            return true
        }
        guard accepted else { return completion(.failure(message: "dispatcher stopped")) }
        curl_multi_wakeup(multi)
    }

    /// Stops the thread: every queued or running transfer completes with `.failure`. Idempotent;
    /// called from a completion it only asks the thread to stop (joining itself would deadlock).
    public func shutdown() {
        let first = shared.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        curl_multi_wakeup(multi)
        guard first, let tid = thread.withLock({ $0 }) else { return }
        if pthread_equal(tid, pthread_self()) != 0 {
            pthread_detach(tid)
            return
        }
        pthread_join(tid, nil)
    }

    private func run() {
        var stopping = false
        while !stopping {
            let (jobs, stop) = takeJobs()
            stopping = stop
            for job in jobs { start(job) }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            let finished = drainFinished()
            if stopping { break }
            // Something finished: loop at once, completions may have queued follow-up requests.
            if finished > 0 { continue }
            var ignored: Int32 = 0
            curl_multi_poll(multi, nil, 0, 1000, &ignored)
        }
        tearDown()
    }

    private func takeJobs() -> ([Job], Bool) {
        let capacity = maxInFlight - active.count
        return shared.withLock { state in
            let count = min(max(capacity, 0), state.queue.count)
            let jobs = Array(state.queue.prefix(count))
            state.queue.removeFirst(count)
            return (jobs, state.stopping)
        }
    }

    private func start(_ job: Job) {
        guard let transfer = CurlTransfer(request: job.request, maximumBody: Self.maximumResponseBytes,
                                          completion: job.completion) else {
            completedCount.add(1, ordering: .relaxed)
            job.completion(.invalidRequest(message: "invalid request (URL, scheme or header refused)"))
            return
        }
        guard curl_multi_add_handle(multi, transfer.easy) == CURLM_OK else {
            transfer.release()
            completedCount.add(1, ordering: .relaxed)
            job.completion(.failure(message: "libcurl refused the transfer"))
            return
        }
        active[transfer.easy] = transfer
    }

    /// Completes every transfer libcurl reports done; returns how many.
    private func drainFinished() -> Int {
        var finished = 0
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = active.removeValue(forKey: easy) else { continue }
            let code = message.pointee.data.result
            let result = transfer.result(code)
            curl_multi_remove_handle(multi, easy)
            transfer.release()
            finished += 1
            completedCount.add(1, ordering: .relaxed)
            requestSeconds.observe(MetricsClock.microseconds() - transfer.startedAt)
            transfer.completion(result)
        }
        return finished
    }

    private func tearDown() {
        for (easy, transfer) in active {
            curl_multi_remove_handle(multi, easy)
            transfer.release()
            transfer.completion(.failure(message: "dispatcher stopped"))
        }
        active.removeAll()
        let leftovers = shared.withLock { state -> [Job] in
            defer { state.queue.removeAll() }
            return state.queue
        }
        for job in leftovers { job.completion(.failure(message: "dispatcher stopped")) }
        curl_multi_cleanup(multi)
    }
}
