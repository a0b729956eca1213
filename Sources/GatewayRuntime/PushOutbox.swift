import Gateway
import Glibc
import Metrics
import Synchronization

/// What a push provider said about one attempt.
public enum PushDeliveryOutcome: Sendable, Equatable {
    case delivered
    /// Try again later; `afterMs` from the provider's Retry-After when it gave one.
    case retry(afterMs: Int64?, reason: String)
    /// The token is dead (APNs 410 / BadDeviceToken, FCM UNREGISTERED): forget it, never retry.
    case invalidToken(reason: String)
    /// The request itself was refused (other 4xx): dead-lettered with the reason, never retried.
    case rejected(reason: String)
}

/// Sends one push job's notice to one target (the push adapters implement it: APNs, FCM, webhook).
public protocol PushTransport: AnyObject, Sendable {
    /// May be called from the hub thread; must not block. `completion` may run on any thread. `deliveryID` names the
    /// outbox job: the same for every retry of one job, different for every job (the webhook's `webhook-id`, which
    /// receivers de-duplicate by).
    func send(_ notice: PushNotice, to target: PushTarget, deliveryID: String, completion: @escaping @Sendable (PushDeliveryOutcome) -> Void)
}

/// Drains the push outbox: due jobs are claimed from the store with a lease (`claimPushJobs`: every node sharing the
/// store drains it, each job goes to one of them), sent with bounded concurrency, and their outcome written back
/// (sent, retried with backoff, or dead with a reason), which ends the claim. An invalid Live Activity token falls
/// back to the job's alert target in the same delivery and the token is forgotten. Runs on the hub thread; after a
/// crash, the jobs this process had claimed are due again when their lease runs out, on any node (at-least-once: a
/// push whose success was not yet recorded can go out twice — the APNs collapse id keeps that to one visible
/// notification, the webhook id lets receivers drop the repeat).
final class PushOutbox: @unchecked Sendable {
    // @unchecked: hub thread only (the counters are locked for /metrics).
    private let hub: GatewayHub
    private let store: GatewayStore
    private let scheduler: any GatewayScheduler & GatewayClock
    private let transport: PushTransport
    private let maxInFlight: Int
    private let retryDelay: @Sendable (_ attempt: Int, _ retryAfterMs: Int64?) -> Int64?
    private let leaseMs: Int64
    /// Names this process's claims in the store (`push_jobs.claimed_by`), for operators; the lease decides.
    private let claimant = PushOutbox.claimantName()
    private var inFlight: Set<Int64> = []
    private var reading = false
    /// Jobs whose outcome was recorded while a read of due jobs was under way: that read may still return their
    /// stale row, which must not be sent again (or retried before its backoff).
    private var finishedDuringRead: Set<Int64> = []
    private var pollTimer: GatewayTimer?
    private let outcomes = Mutex<[String: Int]>([:])
    private let latency = PushLatencyMetrics()
    private let readsDone = Atomic<Int>(0)
    private let attemptsStarted = Atomic<Int>(0)

    /// Reads of due jobs finished so far, counted once the jobs a read returned have been handed to the transport.
    /// Reads never overlap, so two more than an earlier value means a whole read began after it: what lets a caller
    /// know the outbox has looked again (and would have sent anything still due) without waiting on the clock.
    var completedReads: Int { readsDone.load(ordering: .acquiring) }

    /// Sends handed to the transport so far, fallbacks included (one per provider request).
    var startedAttempts: Int { attemptsStarted.load(ordering: .acquiring) }

    init(hub: GatewayHub, store: GatewayStore, scheduler: any GatewayScheduler & GatewayClock, transport: PushTransport, maxInFlight: Int = 64,
         retryDelay: @escaping @Sendable (_ attempt: Int, _ retryAfterMs: Int64?) -> Int64? = PushOutbox.defaultRetryDelay,
         leaseMs: Int64 = PushOutbox.defaultLeaseMs) {
        self.leaseMs = leaseMs
        self.hub = hub
        self.store = store
        self.scheduler = scheduler
        self.transport = transport
        self.maxInFlight = maxInFlight
        self.retryDelay = retryDelay
    }

    /// How long a claimed job stays with its claimant: far above one attempt (the push clients time out well within
    /// it), so only a claimant that died hands its jobs on, after at most this.
    static let defaultLeaseMs: Int64 = 60_000

    /// The host name, process id and a random suffix (two runtimes in one process claim apart).
    private static func claimantName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0 ? String(nulTerminated: name) : "node"
        return "\(host)/\(getpid())/\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Exponential backoff with full jitter from 1 s, capped at 10 min, honouring Retry-After; 12 attempts at most.
    static let defaultRetryDelay: @Sendable (Int, Int64?) -> Int64? = { attempt, retryAfterMs in
        guard attempt < 12 else { return nil }
        let ceiling = min(600_000, 1_000 << min(attempt, 20))
        let jittered = Int64.random(in: Int64(ceiling / 2)...Int64(ceiling))
        return max(jittered, retryAfterMs ?? 0)
    }

    /// Starts polling (hub thread): due jobs are looked for every second and whenever new ones are enqueued.
    func start() {
        hub.onPushJobsEnqueued = { [weak self] in self?.drain() }
        poll()
    }

    private func poll() {
        drain()
        pollTimer = scheduler.schedule(at: scheduler.now() + 1_000) { [weak self] in self?.poll() }
    }

    func drain() {
        guard !reading, inFlight.count < maxInFlight else { return }
        reading = true
        finishedDuringRead = []
        let (store, limit, now, claimant, leaseMs) = (self.store, maxInFlight - inFlight.count, scheduler.now(), claimant, leaseMs)
        scheduler.runBlocking { [self] in
            let due = (try? store.claimPushJobs(claimant: claimant, now: now, leaseMs: leaseMs, limit: limit)) ?? []
            scheduler.execute { [self] in
                reading = false
                for job in due where !inFlight.contains(job.id) && !finishedDuringRead.contains(job.id) {
                    inFlight.insert(job.id)
                    attempt(job, target: job.target, usingFallback: false)
                }
                readsDone.add(1, ordering: .releasing)
            }
        }
    }

    private func attempt(_ job: PushJobRecord, target: PushTarget, usingFallback: Bool) {
        // Job ids are the store's and never reused (the outbox keeps its rows), so this is stable across retries,
        // restarts and nodes.
        attemptsStarted.add(1, ordering: .releasing)
        transport.send(job.notice, to: target, deliveryID: "psh_\(job.id)") { [self] outcome in
            scheduler.execute { [self] in finish(job, target: target, usingFallback: usingFallback, outcome: outcome) }
        }
    }

    private func finish(_ job: PushJobRecord, target: PushTarget, usingFallback: Bool, outcome: PushDeliveryOutcome) {
        count(target.provider, outcome)
        let attempts = job.attempts + 1
        let now = scheduler.now()
        switch outcome {
        case .delivered:
            latency.delivered(provider: target.provider, afterMs: now - job.createdAt)
            record(job.id, "sent", attempts, now, nil)
        case .retry(let afterMs, let reason):
            if let delay = retryDelay(attempts, afterMs), job.notice.expiresAt.map({ now + delay < $0 }) ?? true {
                record(job.id, "pending", attempts, now + delay, reason)
            } else {
                record(job.id, "dead", attempts, now, "gave up after \(attempts) attempts: \(reason)")
            }
        case .invalidToken(let reason):
            hub.forgetPushToken(DeviceKey(userId: job.userId, deviceId: job.deviceId), target: target)
            if !usingFallback, let fallback = job.fallback {
                attempt(job, target: fallback, usingFallback: true)   // same delivery, the alert instead of the Live Activity
                return
            }
            record(job.id, "dead", attempts, now, "invalid token: \(reason)")
        case .rejected(let reason):
            record(job.id, "dead", attempts, now, "rejected: \(reason)")
        }
    }

    private func record(_ id: Int64, _ state: String, _ attempts: Int, _ next: Int64, _ error: String?) {
        store.write([.updatePushJob(id: id, state: state, attempts: attempts, nextAttemptAt: next, lastError: error, claimant: claimant)]) { [self] _ in
            scheduler.execute { [self] in
                inFlight.remove(id)
                if reading { finishedDuringRead.insert(id) }
                if state == "dead" { latency.deadLetters.increment() }
                if state == "pending" { return }
                drain()
            }
        }
    }

    private func count(_ provider: String, _ outcome: PushDeliveryOutcome) {
        let label: String
        switch outcome {
        case .delivered: label = "delivered"
        case .retry: label = "retry"
        case .invalidToken: label = "invalid_token"
        case .rejected: label = "rejected"
        }
        outcomes.withLock { $0["provider=\"\(provider)\",outcome=\"\(label)\"", default: 0] += 1 }
    }

    /// Prometheus text: attempts by provider and outcome.
    func metricsText() -> String {
        var out = "# HELP switchboard_push_attempts_total Push attempts by provider and outcome.\n# TYPE switchboard_push_attempts_total counter\n"
        for (labels, n) in outcomes.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            out += "switchboard_push_attempts_total{\(labels)} \(n)\n"
        }
        return out + latency.render()
    }
}
