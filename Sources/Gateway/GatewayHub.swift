import FoundationEssentials
import GatewayProtocol
import Metrics

/// The gateway domain for one node: users, devices, contacts, presence, sessions, approvals and messages, and the
/// per-user event logs. Every method runs on the hub's own thread (the scheduler's); connections, the HTTP API and
/// store completions reach it through `scheduler.execute`, so no state here is ever locked.
///
/// Every event is appended to the user's durable log before any device sees it: `commit` assigns offsets, hands
/// the batch to the store, and delivers only after the store reports it durable.
///
/// `@unchecked Sendable`: confined to the scheduler's thread; Sendable so closures can carry it back there.
public final class GatewayHub: @unchecked Sendable {
    let store: GatewayStore
    let scheduler: GatewayScheduler
    let clock: GatewayClock
    public let settings: GatewaySettings
    public weak var approvalObserver: ApprovalObserver?
    /// Receives invite texts (SMS/e-mail) after the invite is stored; nil = invites are only returned to the inviter.
    public var inviteDeliverer: InviteDeliverer?
    public let metrics = GatewayMetrics()

    // Durable state. Per user (users, devices, contacts, offsets, push tokens, settings): loaded on demand, see
    // `cache` and GatewayHub+Loading. Sessions, approvals and relationships: loaded at start.
    var users: [String: UserRecord] = [:]
    var usersByHexCode: [String: String] = [:]
    /// Keyed by (user, device): a device id is the client's choice and unique only within its user.
    var devices = DeviceMap()
    var devicesByToken: [String: DeviceKey] = [:]
    var contacts: [String: [String: ContactRecord]] = [:]
    var latestOffsets: [String: Int64] = [:]
    /// Per user, how many failed batches have given offsets back so far (`giveBackOffsets`).
    var offsetWaves: [String: Int] = [:]
    var sessions: [String: SessionRecord] = [:]
    var approvals: [String: ApprovalRecord] = [:]
    var latestMessageId: Int64 = 0
    var latestApprovalSequence: Int64 = 0
    var pushTokens: [DeviceKey: [PushTokenRecord]] = [:]
    var notificationSettings: [String: NotificationSettings] = [:]
    var presencePushPending: [String: Set<String>] = [:]
    var presencePushTimers: [String: GatewayTimer] = [:]
    var presencePushSentAt: [String: Int64] = [:]
    /// Called on the hub thread after a commit that put jobs in the push outbox (the sender wakes up).
    public var onPushJobsEnqueued: (() -> Void)?
    /// Friend requests, pauses, connect codes, groups, invites, phones (GatewayHub+FriendRequests etc.).
    var relations = RelationshipState()
    /// Failed connect codes and new registrations per user, source address and node (GatewayHub+ConnectCodes).
    var attemptLimits = AttemptLimiter.State()
    /// Contact-discovery entries per user, over the discovery window (GatewayHub+Discovery).
    var discoveryLimits = AttemptLimiter.State()
    /// The same limits counted for every node together (Redis), consulted after this node's own; nil on a single node.
    /// Set before `start`.
    public var sharedAttemptLimits: SharedAttemptLimits?
    /// Which users are loaded, and the work waiting for users to be read (GatewayHub+Loading).
    var cache = UserCache()

    // Live state.
    var clients: [String: [ObjectIdentifier: ClientState]] = [:]
    var presence: [String: PresenceState] = [:]
    var approvalTimers: [String: GatewayTimer] = [:]
    var approvalWaiters: [String: [(ApprovalRecord) -> Void]] = [:]
    /// Idempotency keys being looked up or committed, with the callers waiting for their result.
    var idempotencyWaiters: [String: [(Result<IdempotencyRecord, GatewayError>) -> Void]] = [:]
    /// Keys answered recently, with their answers (a retry is answered from here).
    var idempotencyMemory: IdempotencyMemory
    /// Keys to look up in the store at the end of this round.
    var idempotencyLookups: [IdempotencyLookup] = []
    /// Batches made since the store was last handed a job (see `queueWrite`).
    var queuedWrites: [QueuedWrite] = []
    /// Several nodes on one store: announces this node's commits and hears other nodes' (GatewayHub+Cluster). Set
    /// before `start`; nil on a single node.
    public var clusterBus: ClusterBus?
    /// Whether the bus is known to deliver notices; while false the connected users' logs are re-read on a timer.
    var clusterHealthy = false
    var clusterRecheckTimer: GatewayTimer?
    /// Users whose log is being read for missed events, and whether another read was asked for meanwhile.
    var catchUpsInFlight: [String: Bool] = [:]
    /// Other nodes' devices per user and node, as their presence notices last said, each until it expires
    /// (GatewayHub+ClusterPresence).
    var remotePresence: [String: [String: RemoteDevices]] = [:]
    var clusterPresenceTimer: GatewayTimer?

    /// The project's strict JSON path (duplicate keys and trailing commas are `invalid_json`).
    let decoder = StrictJSONDecoder()

    public init(store: GatewayStore, scheduler: GatewayScheduler, clock: GatewayClock, settings: GatewaySettings = .init()) {
        self.store = store
        self.scheduler = scheduler
        self.clock = clock
        self.settings = settings
        idempotencyMemory = IdempotencyMemory(capacity: settings.idempotencyMemoryKeys)
    }

    /// Loads what is not per user (open sessions, pending approvals, id counters) and re-arms
    /// approval deadlines (expired ones time out at once); users are read when first needed (GatewayHub+Loading).
    /// Call once, on the hub thread.
    public func start() throws {
        let snapshot = try store.loadStartState()
        for session in snapshot.openSessions { sessions[session.id] = session }
        latestMessageId = snapshot.latestMessageId
        latestApprovalSequence = snapshot.latestApprovalSequence
        for approval in snapshot.pendingApprovals {
            approvals[approval.id] = approval
            armTimeout(for: approval)
        }
        metrics.pendingApprovals.store(snapshot.pendingApprovals.count, ordering: .relaxed)
        if settings.approvalSweepIntervalMs > 0 { scheduleApprovalSweep() }
        startCluster()
    }

    // MARK: Committing events

    /// An event to append to one user's log.
    struct PendingEvent {
        var userId: String
        var type: String
        var data: [UInt8]
        /// The typed data for push policy, for the event types it may push (`PushableEvent`); nil for the rest.
        var pushable: PushableEvent? = nil
    }

    /// Appends `events` (offsets assigned now, in order) together with `writes` in one durable batch; after the commit
    /// delivers each event to its user's connected devices, then calls `completion` (on the hub thread) with the stored events
    /// or the storage error. On a storage error nothing is delivered and the offsets are given back.
    ///
    /// When the store refuses a decision in the batch (another node decided first, `StoreConflict`), nothing was
    /// stored: a taken offset is corrected from the store's answer and the batch retried with new offsets (a few
    /// times); any other conflict goes to `onConflict`, whose caller knows what the decision meant. Without one, a lost
    /// idempotency key answers the key's callers with the stored response, and anything else is `storage_failed`.
    ///
    /// The users the events go to are loaded first (their offsets and push tokens are needed), when they are not.
    func commit(_ writes: [StoreWrite], events: [PendingEvent] = [], onConflict: ((StoreConflict) -> Void)? = nil,
                completion: @escaping (Result<[StoredEvent], GatewayError>) -> Void) {
        guard events.allSatisfy({ cache.isLoaded($0.userId) }) else {
            return withUsers(events.map(\.userId), failed: { completion(.failure($0)) }) { [self] in
                commit(writes, events: events, attempt: 1, onConflict: onConflict, completion: completion)
            }
        }
        commit(writes, events: events, attempt: 1, onConflict: onConflict, completion: completion)
    }

    /// Offset collisions retried before giving up. Each retry takes the store's latest offset, and every collision
    /// means another node stored an event (the log moved on), so retrying cannot stall the cluster; but a node whose
    /// every retry meets the other node's next commit (two nodes appending to one log flat out) can lose several
    /// times in a row (measured: up to 8 losses in a row in `ClusterDeliveryTests`). From the third attempt on a retry
    /// waits a random 1…2^(attempt−2) ms (at most 64), so the two fall out of step; 64 attempts make giving up (503
    /// `storage_failed`) practically unreachable while bounding the wait (about 4 s at worst).
    static let offsetRetries = 64

    /// The wait before commit attempt `attempt` after an offset collision (0: at once).
    static func offsetRetryDelayMs(attempt: Int) -> Int64 {
        attempt <= 2 ? 0 : Int64.random(in: 1...Int64(1 << min(attempt - 2, 6)))
    }

    private func commit(_ writes: [StoreWrite], events: [PendingEvent], attempt: Int, onConflict: ((StoreConflict) -> Void)?,
                        completion: @escaping (Result<[StoredEvent], GatewayError>) -> Void) {
        let now = clock.now()
        var storedEvents: [StoredEvent] = []
        var waves: [String: Int] = [:]
        var batch = writes
        for event in events {
            let offset = (latestOffsets[event.userId] ?? 0) + 1
            latestOffsets[event.userId] = offset
            waves[event.userId] = offsetWaves[event.userId, default: 0]
            let record = StoredEvent(userId: event.userId, offset: offset, type: event.type, payload: event.data, createdAt: now)
            storedEvents.append(record)
            batch.append(.appendEvent(record))
            batch += pushJobs(for: event, offset: offset).map { .enqueuePush($0) }
        }
        let enqueuedPush = batch.contains { if case .enqueuePush = $0 { return true } else { return false } }
        metrics.commitsInFlight.add(1, ordering: .relaxed)
        let queuedAt = MetricsClock.microseconds()
        queueWrite(batch) { [self] error in
            metrics.commitsInFlight.subtract(1, ordering: .relaxed)
            let committedAt = MetricsClock.microseconds()
            metrics.commitSeconds.observe(committedAt - queuedAt)
            if let error {
                giveBackOffsets(of: storedEvents, waves: waves, conflict: error as? StoreConflict)
                if let conflict = error as? StoreConflict {
                    if conflict.isOffset, attempt < Self.offsetRetries {
                        let delay = Self.offsetRetryDelayMs(attempt: attempt + 1)
                        guard delay > 0 else {
                            return commit(writes, events: events, attempt: attempt + 1, onConflict: onConflict, completion: completion)
                        }
                        _ = scheduler.schedule(at: clock.now() + delay) { [self] in
                            commit(writes, events: events, attempt: attempt + 1, onConflict: onConflict, completion: completion)
                        }
                        return
                    }
                    if let onConflict, !conflict.isOffset { return onConflict(conflict) }
                    // An idempotent command lost its key to another writer: its callers get the stored response.
                    if settleIdempotency(after: conflict) { return }
                }
                metrics.commitFailures.add(1, ordering: .relaxed)
                completion(.failure(.storageFailed("could not store the change: \(error)", cause: error)))
                return
            }
            metrics.eventsCommitted.add(storedEvents.count, ordering: .relaxed)
            for event in storedEvents { deliver(event, committedAt: committedAt) }
            announce(storedEvents)
            if enqueuedPush { onPushJobsEnqueued?() }
            completion(.success(storedEvents))
        }
    }

    /// Queues one all-or-nothing batch for the store; `completion` runs on the hub thread once it is durable (nil) or
    /// failed. Every write of the hub goes through here, so batches reach the store in the order they were made.
    ///
    /// Everything queued until the hub next runs its task queue is handed to the store as one job, and the store's
    /// one report for that job comes back as one hub task (one writer hand-off and one wake-up per hub iteration,
    /// not per batch; see docs/ARCHITECTURE.md, "The commit path").
    func queueWrite(_ writes: [StoreWrite], completion: @escaping (Error?) -> Void) {
        let (touched, changed) = noteWrites(writes)
        queuedWrites.append(QueuedWrite(writes: writes) { [self] error in
            completion(error)
            writesDone(touched: touched, changed: changed, stored: error == nil)
        })
        // First in this round: flush when the hub next takes up its tasks (after the rest of this iteration).
        if queuedWrites.count == 1 { scheduler.execute { [self] in flushWrites() } }
    }

    /// A batch waiting for the hub to hand it to the store.
    struct QueuedWrite {
        var writes: [StoreWrite]
        var completion: (Error?) -> Void
        init(writes: [StoreWrite], completion: @escaping (Error?) -> Void) { self.writes = writes; self.completion = completion }
    }

    /// Hands every queued batch to the store as one job; the completions run in order in one hub task. Runs by itself
    /// after each round; call it on the hub thread before stopping the hub so nothing queued is left behind.
    public func flushWrites() {
        guard !queuedWrites.isEmpty else { return }
        let queued = UncheckedBox(queuedWrites)
        queuedWrites = []
        store.write(batches: queued.value.map(\.writes)) { [self] errors in
            scheduler.execute {
                for (write, error) in zip(queued.value, errors) { write.completion(error) }
            }
        }
    }

    /// Sends a committed event to every connected device of its user (buffering for devices still replaying). With a
    /// cluster bus, an event that skips offsets (another node's events in between, not heard of yet) waits while the
    /// missing ones are read from the store, so each device still gets its log in order.
    func deliver(_ event: StoredEvent, committedAt: Int? = nil) {
        guard let userClients = clients[event.userId] else { return }
        let frame = ServerFrames.event(type: event.type, offset: event.offset, timestamp: event.createdAt, data: event.payload)
        let checkGaps = clusterBus != nil
        var gap = false
        for (_, state) in userClients where !state.deliver(offset: event.offset, frame: frame, committedAt: committedAt, checkGaps: checkGaps) {
            gap = true
        }
        if gap { catchUp(event.userId) }
    }

    /// Sends a frame that is not part of the log (presence) to every connected device of `userId`.
    func deliverEphemeral(to userId: String, frame: [UInt8]) {
        guard let userClients = clients[userId] else { return }
        for (_, state) in userClients where !state.resuming { state.client.send(frame) }
    }

    func encode(_ value: some Encodable) -> [UInt8] { ServerFrames.encode(value) }
}

extension StoreConflict {
    var isOffset: Bool { if case .offsetTaken = self { return true } else { return false } }
}

/// Carries a hub-thread closure through the store's Sendable completion; it is only called back on the hub thread.
struct UncheckedBox<T>: @unchecked Sendable {
    // @unchecked: the value is only used back on the hub thread it came from.
    let value: T
    init(_ value: T) { self.value = value }
}
