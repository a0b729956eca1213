import EventLoop
import Foundation
import Synchronization

/// The app backend of the gateway scenarios: `threads` threads, each with its own blocking `APIClient`, taking
/// server-API calls from one FIFO queue. Off the socket loops on purpose: an API call blocks for a durable commit.
///
/// Thread-safety: `submit` and `runAll` from any thread; completions run on a backend thread (hop to a loop with
/// `EventLoop.execute` before touching loop state). `shutdown` stops the threads after the queued calls.
final class BackendPool: @unchecked Sendable {
    // @unchecked: the queue and counters are guarded by `condition` (NSCondition, a wait Mutex lacks).
    /// One server-API call. `body` is built on the backend thread just before sending, from the send time (monotonic
    /// ns), so latencies measured from a timestamp inside the body start when the request really leaves.
    struct Job: Sendable {
        var method: String
        var path: String
        var body: @Sendable (_ sentAtNs: UInt64) -> String?
        var completion: @Sendable (_ result: Result<APIClient.Response, APIClient.Failure>, _ sentAtNs: UInt64) -> Void
    }

    private let condition = NSCondition()
    private var queue: [Job] = []
    private var head = 0
    private var stopping = false
    private var running = 0

    /// Starts `threads` backend threads talking to `address` (Host header `hostHeader`) with `apiKey`.
    init(address: SocketAddress, hostHeader: String, apiKey: String, threads: Int) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in
                let client = APIClient(address: address, hostHeader: hostHeader, apiKey: apiKey)
                work(client)
            }
            thread.name = "backend-\(index)"
            running += 1
            thread.start()
        }
    }

    /// Calls waiting for a thread (a growing backlog means the backend cannot keep the requested rate).
    var backlog: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count - head
    }

    /// Queues one call.
    func submit(_ job: Job) {
        condition.lock()
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `calls` (method, path, JSON body) to completion on the pool and returns the first failure as a message,
    /// nil when every call answered 2xx. For setup before the load (users, contacts, sessions).
    func runAll(_ calls: [(method: String, path: String, body: String?)]) -> String? {
        let tally = Mutex<(remaining: Int, failure: String?)>((calls.count, nil))
        for call in calls {
            submit(Job(method: call.method, path: call.path, body: { _ in call.body }) { result, _ in
                var problem: String?
                switch result {
                case .success(let response) where (200..<300).contains(response.status): break
                case .success(let response):
                    problem = "\(call.method) \(call.path) answered \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))"
                case .failure(let error):
                    problem = "\(call.method) \(call.path) failed: \(error.kind)"
                }
                tally.withLock { $0.remaining -= 1; $0.failure = $0.failure ?? problem }
            })
        }
        // Setup is a one-off before the load: polling every millisecond is simpler than a second condition.
        while tally.withLock({ $0.remaining }) > 0 { MonotonicClock.sleep(nanoseconds: 1_000_000) }
        return tally.withLock { $0.failure }
    }

    /// Lets the threads finish what is queued, then stop; waits for them.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work(_ client: APIClient) {
        while let job = next() {
            let sentAt = MonotonicClock.nanoseconds()
            let result: Result<APIClient.Response, APIClient.Failure>
            do {
                result = .success(try client.send(job.method, job.path, json: job.body(sentAt)))
            } catch {
                result = .failure(error)
            }
            job.completion(result, sentAt)
        }
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == queue.count && !stopping { condition.wait() }
        guard head < queue.count else { return nil }
        let job = queue[head]
        head += 1
        // Compact now and then so the array does not grow with every call of a long run.
        if head > 4096 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return job
    }
}
