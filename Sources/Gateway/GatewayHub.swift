import FoundationEssentials
import GatewayProtocol
import Metrics

/// The gateway domain for one node: users, devices, contacts, presence, sessions, approvals and messages, and the
/// per-user event logs. Every method runs on the hub's own thread (the scheduler's); connections, the HTTP API and
/// store completions reach it through `scheduler.execute`, so no state here is ever locked.
///
/// Every event is appended to the user's durable log before any device sees it: `commit` hands the batch to the
/// store, which takes the offsets in the insert, and delivers only after the store reports it durable.
///
/// `@unchecked Sendable`: confined to the scheduler's thread; Sendable so closures can carry it back there.
public final class GatewayHub: @unchecked Sendable {
    let store: GatewayStore
    let scheduler: GatewayScheduler
    let clock: GatewayClock
    public let settings: GatewaySettings
    /// Told of every finished approval (the backend webhook); set before `start`.
    public var approvalObserver: ApprovalObserver? {
        get { approvals.observer }
        set { approvals.observer = newValue }
    }
    /// Receives invite texts (SMS/e-mail) after the invite is stored; nil = invites are only returned to the inviter.
    public var inviteDeliverer: InviteDeliverer?
    public let metrics: GatewayMetrics

    // Durable state. Per user (users, devices, contacts, offsets, push tokens, settings, open sessions, relationships):
    // loaded on demand, see `cache` and GatewayHub+Loading. Pending approvals: loaded at start.
    var users: [String: UserRecord] = [:]
    var usersByHexCode: [String: String] = [:]
    /// Keyed by (user, device): a device id is the client's choice and unique only within its user.
    var devices = DeviceMap()
    var devicesByToken: [String: DeviceKey] = [:]
    var contacts: [String: [String: ContactRecord]] = [:]
    /// The highest offset of each loaded user's log this node knows of (its commits' receipts, reads, other nodes'
    /// notices); acks above it are refused.
    var latestOffsets: [String: Int64] = [:]
    /// Sessions of loaded users: their open ones (read with the user) and others read since (forgotten with the user).
    var sessions = SessionMap()
    /// Every pending approval, and decided ones of loaded users read or decided since (forgotten with the user), with
    /// their deadlines and long-polls.
    let approvals: ApprovalDesk
    /// Message and approval ids reserved from the store, in request order (`IdDesk`).
    let ids: IdDesk
    var pushTokens = PushTokenIndex()
    var notificationSettings: [String: NotificationSettings] = [:]
    /// Loaded users' revoked devices (and the whole user once deleted), checked when a device connects or calls
    /// `/v1/users/me/…` (GatewayHub+Lifecycle).
    var revocations: [String: [RevocationRecord]] = [:]
    /// Each watcher's coalesced background presence pushes (GatewayHub+Push).
    let presencePushes: PresencePushes
    /// Each user's acknowledgement deadlines and their timers (GatewayHub+Delivery).
    let deadlines: DeliveryDeadlines
    /// Called on the hub thread after a commit that put jobs in the push outbox (the sender wakes up).
    public var onPushJobsEnqueued: (() -> Void)?
    /// Friend requests, pauses, connect codes, groups, invites, phones (GatewayHub+FriendRequests etc.).
    var relations = RelationshipState()
    /// Failed connect codes and new registrations per user, source address and node (GatewayHub+ConnectCodes).
    var attemptLimits = AttemptLimiter.State()
    /// Contact-discovery entries per user, over the discovery window (GatewayHub+Discovery).
    var discoveryLimits = AttemptLimiter.State()
    /// Invites per inviter and per node, over the invite window (GatewayHub+Invites).
    var inviteLimits = AttemptLimiter.State()
    /// The same limits counted for every node together (Redis), consulted after this node's own; nil on a single node.
    /// Set before `start`.
    public var sharedAttemptLimits: SharedAttemptLimits?
    /// Which users are loaded, and the work waiting for users to be read (GatewayHub+Loading).
    var cache = UserCache()

    // Live state.
    var clients: [String: [ObjectIdentifier: ClientState]] = [:]
    var presence: [String: PresenceState] = [:]
    /// Idempotency keys: remembered answers, keys in flight and their waiters, the round's store look-ups.
    let idempotency: IdempotencyDesk
    /// Batches made since the store was last handed a job (see `queueWrite`).
    let queuedWrites = RoundBatch<QueuedWrite>()
    /// The link to the other nodes: bus, health, catch-up reads, their presence counts (GatewayHub+Cluster).
    let cluster: ClusterLink
    /// Several nodes on one store: announces this node's commits and hears other nodes' (GatewayHub+Cluster). Set
    /// before `start`; nil on a single node.
    public var clusterBus: ClusterBus? {
        get { cluster.bus }
        set { cluster.attach(newValue) }
    }

    public init(
        store: GatewayStore, scheduler: GatewayScheduler, clock: GatewayClock, settings: GatewaySettings = .init()
    ) {
        self.store = store
        self.scheduler = scheduler
        self.clock = clock
        self.settings = settings
        let metrics = GatewayMetrics()
        self.metrics = metrics
        cluster = ClusterLink(scheduler: scheduler, clock: clock, settings: settings)
        presencePushes = PresencePushes(scheduler: scheduler, clock: clock, intervalMs: settings.presencePushIntervalMs)
        deadlines = DeliveryDeadlines(
            settings: DeliveryMachine.Settings(
                ackDelayMs: settings.pushAckDelayMs, approvalDelayMs: settings.approvalPushDelayMs),
            scheduler: scheduler, clock: clock)
        ids = IdDesk(store: store, scheduler: scheduler, clock: clock)
        approvals = ApprovalDesk(scheduler: scheduler, clock: clock, metrics: metrics)
        idempotency = IdempotencyDesk(store: store, scheduler: scheduler, memoryKeys: settings.idempotencyMemoryKeys)
        ids.handedOut = { [weak self] in self?.runSettledIfDone() }
        deadlines.onDeadline = { [weak self] in self?.pushDue($0) }
    }

    /// Loads the pending approvals (the only records not read per user: bounded by the request rate times the
    /// timeout, docs/ARCHITECTURE.md) and arms their deadlines (expired ones time out at once); users, with their
    /// open sessions, are read when first needed (GatewayHub+Loading). Call once, on the hub thread.
    public func start() throws {
        let pending = try store.pendingApprovals(dueBy: .max, limit: .max)
        for approval in pending {
            remember(approval)
            armTimeout(for: approval)
        }
        if settings.approvalSweepIntervalMs > 0 { scheduleApprovalSweep() }
        startCluster()
    }

    // MARK: Committing events

    /// An event to append to one user's log.
    struct PendingEvent {
        var userId: String
        var type: LogEventType
        var data: [UInt8]
        /// The typed data for push policy, for the event types it may push (`PushableEvent`); nil for the rest.
        var pushable: PushableEvent? = nil
    }

    /// Appends `events` (in order) together with `writes` in one durable batch; the store gives the events their
    /// offsets in the insert (the next of each log, so two nodes appending to one log never collide and nothing is
    /// retried for an offset). After the commit delivers each event, with the offset the store's receipt names, to
    /// its user's connected devices, then calls `completion` (on the hub thread) with the stored events or the storage
    /// error. On a storage error nothing is stored and nothing delivered.
    ///
    /// When the store refuses a decision in the batch (another node decided first, `StoreConflict`), nothing was
    /// stored: the conflict goes to `onConflict`, whose caller knows what the decision meant. Without one, a lost
    /// idempotency key answers the key's callers with the stored response, and anything else is `storage_failed`.
    ///
    /// The users the events go to are loaded first (their devices and push tokens are needed), when they are not.
    /// `after`: writes that follow the events in the batch (`claimIdempotentOffset` names the offset of an append before it).
    func commit(
        _ writes: [StoreWrite], events: [PendingEvent] = [], after: [StoreWrite] = [],
        onConflict: ((StoreConflict) -> Void)? = nil,
        completion: @escaping (Result<[StoredEvent], GatewayError>) -> Void
    ) {
        guard events.allSatisfy({ cache.isLoaded($0.userId) }) else {
            return withUsers(events.map(\.userId), failed: { completion(.failure($0)) }) { [self] in
                commitLoaded(writes, events: events, after: after, onConflict: onConflict, completion: completion)
            }
        }
        commitLoaded(writes, events: events, after: after, onConflict: onConflict, completion: completion)
    }

    private func commitLoaded(
        _ writes: [StoreWrite], events: [PendingEvent], after: [StoreWrite],
        onConflict: ((StoreConflict) -> Void)?,
        completion: @escaping (Result<[StoredEvent], GatewayError>) -> Void
    ) {
        let now = clock.now()
        var storedEvents: [StoredEvent] = []
        /// Events whose push waits for acknowledgements: fed to `deadlines` once the receipt names their offsets.
        var awaiting: [(index: Int, DeliveryDeadlines.Awaiting)] = []
        var batch = writes
        for event in events {
            // Offset 0 until the store's receipt names the one it took.
            let record = StoredEvent(
                userId: event.userId, offset: 0, type: event.type.rawValue, payload: event.data, createdAt: now)
            storedEvents.append(record)
            batch.append(.appendEvent(record))
            switch pushPlan(for: event) {
            case .jobs(let jobs): batch += jobs.map { .enqueuePush($0) }
            case .awaitAcknowledgement(let waiting): awaiting.append((storedEvents.count - 1, waiting))
            }
        }
        batch += after
        let enqueuedPush = batch.contains { if case .enqueuePush = $0 { return true } else { return false } }
        metrics.commitsInFlight.add(1, ordering: .relaxed)
        let queuedAt = MetricsClock.microseconds()
        queueCommit(batch) { [self] result in
            metrics.commitsInFlight.subtract(1, ordering: .relaxed)
            let committedAt = MetricsClock.microseconds()
            metrics.commitSeconds.observe(committedAt - queuedAt)
            let receipt: StoreReceipt
            switch result {
            case .success(let stored): receipt = stored
            case .failure(let error):
                if let conflict = error as? StoreConflict {
                    if let onConflict { return onConflict(conflict) }
                    // An idempotent command lost its key to another writer: its callers get the stored response.
                    if idempotency.settle(after: conflict) { return }
                }
                metrics.commitFailures.add(1, ordering: .relaxed)
                completion(.failure(.storageFailed("could not store the change: \(error)", cause: error)))
                return
            }
            for (i, offset) in zip(storedEvents.indices, receipt.offsets) {
                storedEvents[i].offset = offset
                if offset > latestOffsets[storedEvents[i].userId] ?? 0 {
                    latestOffsets[storedEvents[i].userId] = offset
                }
            }
            metrics.eventsCommitted.add(storedEvents.count, ordering: .relaxed)
            for event in storedEvents { deliver(event, committedAt: committedAt) }
            // After delivery: the devices that got it on a socket wait for its deadline, the others are pushed now.
            for (index, waiting) in awaiting { awaitAcknowledgement(waiting, of: storedEvents[index]) }
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
        queueCommit(writes) { completion($0.storeError) }
    }

    /// `queueWrite` for a caller that needs the store's receipt (the offsets its appends got).
    func queueCommit(_ writes: [StoreWrite], completion: @escaping (Result<StoreReceipt, Error>) -> Void) {
        let (touched, changed) = noteWrites(writes)
        let write = QueuedWrite(writes: writes) { [self] result in
            if case .success(let receipt) = result { adoptStoredUsers(receipt.users) }
            completion(result)
            writesDone(touched: touched, changed: changed, stored: result.storeError == nil)
        }
        queuedWrites.add(write, on: scheduler) { [self] in flushWrites() }
    }

    /// A batch waiting for the hub to hand it to the store.
    struct QueuedWrite {
        var writes: [StoreWrite]
        var completion: (Result<StoreReceipt, Error>) -> Void
        init(writes: [StoreWrite], completion: @escaping (Result<StoreReceipt, Error>) -> Void) {
            self.writes = writes
            self.completion = completion
        }
    }

    /// Hands every queued batch to the store as one job; the completions run in order in one hub task. Runs by itself
    /// after each round; call it on the hub thread before stopping the hub so nothing queued is left behind.
    public func flushWrites() {
        guard !queuedWrites.isEmpty else { return }
        let queued = UncheckedBox(queuedWrites.take())
        store.commit(batches: queued.value.map(\.writes)) { [self] results in
            scheduler.execute {
                for (write, result) in zip(queued.value, results) { write.completion(result) }
            }
        }
    }

    /// Sends a committed event to every connected device of its user (buffering for devices still replaying). With a
    /// cluster bus, an event that skips offsets (another node's events in between, not heard of yet) waits while the
    /// missing ones are read from the store, so each device still gets its log in order.
    func deliver(_ event: StoredEvent, committedAt: Int? = nil) {
        guard let userClients = clients[event.userId] else { return }
        let frame = ServerFrames.event(
            type: event.type, offset: event.offset, timestamp: event.createdAt, data: event.payload)
        let checkGaps = cluster.bus != nil
        var gap = false
        for (_, state) in userClients
        where !state.deliver(offset: event.offset, frame: frame, committedAt: committedAt, checkGaps: checkGaps) {
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
    func encode(_ value: some Encodable & JSONWritable) -> [UInt8] { ServerFrames.encode(value) }
}

/// Carries a hub-thread closure through the store's Sendable completion; it is only called back on the hub thread.
struct UncheckedBox<T>: @unchecked Sendable {
    // @unchecked: the value is only used back on the hub thread it came from.
    let value: T
    init(_ value: T) { self.value = value }
}
