import EventLoop
import Synchronization
import WebSocketCodec

/// Runs one loop's share of a scenario through its phases, all on that loop's thread:
/// ramp (start connections at the planned rate) → hold (`--duration`) → drain (stop sending, wait for what is in
/// flight) → close (close handshakes, then drop stragglers) → done (publish stats).
///
/// Every phase is bounded: the ramp by the handshake timeout, hold by the duration, drain by
/// `drainTimeoutMilliseconds`, close by the client close timeout plus one second. So a run always stops by itself.
/// `@unchecked Sendable`: loop-confined apart from `counters` (atomics) and `finalStats` (a mutex).
final class LoopDriver: WebSocketClientDelegate, @unchecked Sendable {
    enum Phase { case notStarted, ramping, holding, draining, closing, done }

    let loop: EventLoop
    let plan: RunPlan
    /// Read by the coordinator for the progress line.
    let counters = LiveCounters()
    /// This loop's measurements; sessions record into it directly.
    var stats = LoadStats()
    var random: FastRandom
    private(set) var phase = Phase.notStarted
    private let finalStats = Mutex<LoadStats?>(nil)

    /// Scenario logic across connections (gateway scenarios), nil for independent connections.
    private(set) var coordinator: (any LoopCoordinator)?
    private var clients: [WebSocketClient?] = []
    /// Connections opened by the coordinator beyond the plan (ids from `plan.connections` on).
    private var isExtra: [Bool] = []
    private var sessions: [(any ConnectionSession)?] = []
    private var wasOpen: [Bool] = []
    private var started = 0
    private var live = 0
    private var resolved = 0
    private var rampStartNs: UInt64 = 0
    private var phaseDeadlineMs: UInt64 = 0
    /// The ramp timer ticks this often; each tick starts the connections that are due.
    private static let tickMilliseconds: UInt64 = 10

    init(loop: EventLoop, plan: RunPlan) {
        self.loop = loop
        self.plan = plan
        random = FastRandom(seed: plan.seed)
    }

    /// The stats, once `counters.finished` is true (nil before).
    func takeFinalStats() -> LoadStats? {
        finalStats.withLock { $0 }
    }

    /// Starts the ramp. Call on the loop (e.g. through `execute`).
    func begin() {
        precondition(phase == .notStarted)
        phase = .ramping
        rampStartNs = MonotonicClock.nanoseconds()
        clients = Array(repeating: nil, count: plan.connections)
        sessions = Array(repeating: nil, count: plan.connections)
        wasOpen = Array(repeating: false, count: plan.connections)
        isExtra = Array(repeating: false, count: plan.connections)
        coordinator = plan.scenario.makeCoordinator(driver: self)
        rampTick()
    }

    /// Counts a failure (sessions call this for verification failures too).
    func recordError(_ kind: String, count: Int = 1) {
        stats.errors[kind, default: 0] += count
        counters.errors.add(count, ordering: .relaxed)
    }

    // MARK: Phases

    private func rampTick() {
        guard phase == .ramping else { return }
        let elapsed = Double(MonotonicClock.nanoseconds() - rampStartNs) / 1e9
        var due = min(plan.connections, Int(elapsed * plan.connectsPerSecond) + 1)
        if plan.maxInFlight > 0 { due = min(due, resolved + plan.maxInFlight) }
        while started < due {
            startConnection(started)
            started += 1
        }
        if resolved == plan.connections {
            stats.rampSeconds = Double(MonotonicClock.nanoseconds() - rampStartNs) / 1e9
            enterHold()
        } else {
            loop.schedule(afterMilliseconds: Self.tickMilliseconds) { [self] in rampTick() }
        }
    }

    /// Opens a connection beyond the plan for the coordinator (churn, resume checks) with `session` as its
    /// behaviour; it counts in `extraConnectAttempts`, its failures as errors, and it is closed with the others.
    /// Returns the client, or nil once closing has begun.
    @discardableResult
    func openExtraConnection(_ session: any ConnectionSession) -> WebSocketClient? {
        guard phase != .closing && phase != .done else { return nil }
        let id = clients.count
        let client = WebSocketClient(id: id, loop: loop, settings: plan.settings)
        client.delegate = self
        client.requestPath = session.requestPath
        client.node = session.node
        clients.append(client)
        sessions.append(session)
        wasOpen.append(false)
        isExtra.append(true)
        stats.extraConnectAttempts += 1
        live += 1
        let sources = plan.settings.sources
        let source = sources.isEmpty ? nil : sources[(plan.firstConnectionIndex + id) % sources.count]
        client.start(source: source, random: &random)
        return client
    }

    /// An attempt of the ramp finished: with an in-flight cap, start the next ones now rather than at the next tick,
    /// so the cap (not the 10 ms tick) sets the pace.
    private func attemptResolved() {
        resolved += 1
        guard phase == .ramping, plan.maxInFlight > 0 else { return }
        let elapsed = Double(MonotonicClock.nanoseconds() - rampStartNs) / 1e9
        let due = min(plan.connections, Int(elapsed * plan.connectsPerSecond) + 1, resolved + plan.maxInFlight)
        while started < due {
            startConnection(started)
            started += 1
        }
    }

    private func startConnection(_ id: Int) {
        let client = WebSocketClient(id: id, loop: loop, settings: plan.settings)
        client.delegate = self
        clients[id] = client
        let session = plan.scenario.makeSession(id: id, driver: self)
        sessions[id] = session
        client.requestPath = session.requestPath
        client.node = session.node
        stats.connectAttempts += 1
        stats.peakAttemptsInFlight = max(stats.peakAttemptsInFlight, id + 1 - resolved)
        live += 1
        let sources = plan.settings.sources
        let source = sources.isEmpty ? nil : sources[(plan.firstConnectionIndex + id) % sources.count]
        client.start(source: source, random: &random)
    }

    private func enterHold() {
        phase = .holding
        coordinator?.startTraffic()
        loop.schedule(afterMilliseconds: plan.holdMilliseconds) { [self] in enterDrain() }
    }

    private func enterDrain() {
        phase = .draining
        stats.activeSeconds = Double(MonotonicClock.nanoseconds() - rampStartNs) / 1e9
        for session in sessions { session?.stopSending() }
        coordinator?.stopSending()
        phaseDeadlineMs = loop.now + plan.drainTimeoutMilliseconds
        drainTick()
    }

    private func drainTick() {
        let inFlight = sessions.reduce(0) { $0 + ($1?.outstanding ?? 0) } + (coordinator?.outstanding ?? 0)
        if inFlight == 0 || loop.now >= phaseDeadlineMs {
            enterClose()
        } else {
            loop.schedule(afterMilliseconds: Self.tickMilliseconds) { [self] in drainTick() }
        }
    }

    private func enterClose() {
        phase = .closing
        coordinator?.finish()
        phaseDeadlineMs = loop.now + plan.settings.closeTimeoutMs + 1000
        // Sessions count what is still outstanding as lost when their connection ends.
        for client in clients { client?.close() }
        closeTick()
    }

    private func closeTick() {
        if live == 0 {
            finish()
        } else if loop.now >= phaseDeadlineMs {
            for client in clients { client?.fail("close_timeout") }
            finish()
        } else {
            loop.schedule(afterMilliseconds: Self.tickMilliseconds) { [self] in closeTick() }
        }
    }

    private func finish() {
        guard phase != .done else { return }
        phase = .done
        let snapshot = stats
        finalStats.withLock { $0 = snapshot }
        counters.finished.store(true, ordering: .releasing)
    }

    // MARK: WebSocketClientDelegate

    func clientDidOpen(_ client: WebSocketClient, upgradeMicroseconds: UInt64) {
        if isExtra[client.id] {
            wasOpen[client.id] = true
            counters.open.add(1, ordering: .relaxed)
            if phase == .closing { client.close() } else { sessions[client.id]?.didOpen(client) }
            return
        }
        stats.connectsSucceeded += 1
        stats.upgradeLatency.record(microseconds: upgradeMicroseconds)
        wasOpen[client.id] = true
        attemptResolved()
        counters.open.add(1, ordering: .relaxed)
        counters.attemptsDone.add(1, ordering: .relaxed)
        if phase == .closing || phase == .draining {
            client.close()  // opened too late to take part
            return
        }
        sessions[client.id]?.didOpen(client)
    }

    func clientDidReceive(_ client: WebSocketClient, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        sessions[client.id]?.didReceive(client, opcode: opcode, payload: payload)
    }

    func clientDidEnd(_ client: WebSocketClient, failure: String?) {
        let id = client.id
        if wasOpen[id] {
            counters.open.subtract(1, ordering: .relaxed)
        } else if !isExtra[id] {
            attemptResolved()
            counters.attemptsDone.add(1, ordering: .relaxed)
        }
        if let failure { recordError(failure) }
        sessions[id]?.didEnd()
        sessions[id] = nil
        clients[id] = nil
        live -= 1
    }
}
