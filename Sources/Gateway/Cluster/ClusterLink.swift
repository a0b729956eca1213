/// This node's link to the others (docs/CLUSTER.md): the bus, whether it is known to deliver notices, the re-read
/// timer while it does not, the users whose logs are being read for missed events, and the other nodes' device counts
/// per user with the timer that repeats this node's own. The hub's cluster flow (GatewayHub+Cluster) decides what to
/// read and deliver; this keeps the link's state. Nil bus: a single node, and every question here answers "nothing".
///
/// `@unchecked Sendable`: confined to the hub thread; Sendable so hub tasks can carry it back there.
final class ClusterLink: @unchecked Sendable {
    private let scheduler: GatewayScheduler
    private let clock: GatewayClock
    private let settings: GatewaySettings
    /// Several nodes on one store; nil on a single node. Set before `start`.
    private(set) var bus: ClusterBus?
    /// Whether the bus is known to deliver notices; while false the connected users' logs are re-read on a timer.
    private(set) var isHealthy = false
    private var recheckTimer: GatewayTimer?
    /// Users whose log is being read for missed events, and whether another read was asked for meanwhile.
    private var catchUpsInFlight: [String: Bool] = [:]
    /// Other nodes' devices per user and node, as their presence notices last said, each until it expires.
    private var remote = RemotePresence()
    private var presenceTimer: GatewayTimer?

    init(scheduler: GatewayScheduler, clock: GatewayClock, settings: GatewaySettings) {
        self.scheduler = scheduler
        self.clock = clock
        self.settings = settings
    }

    /// Sets the bus (before the hub starts).
    func attach(_ bus: ClusterBus?) { self.bus = bus }

    // MARK: Health

    /// The bus lost notices: true when it was healthy until now (the caller starts re-reading).
    func markLost() -> Bool {
        guard isHealthy else { return false }
        isHealthy = false
        return true
    }

    /// The bus works again: other nodes' counts get a fresh TTL (their repeats were lost with it, not their devices)
    /// and the re-read timer stops.
    func markRestored() {
        isHealthy = true
        remote.renew(expiresAt: clock.now() + settings.clusterPresenceTtlMs)
        recheckTimer?.cancel()
        recheckTimer = nil
    }

    /// While the bus is not healthy, `tick` runs every `clusterRecheckIntervalMs` (one timer at a time).
    func scheduleRecheck(_ tick: @escaping () -> Void) {
        guard recheckTimer == nil else { return }
        recheckTimer = scheduler.schedule(at: clock.now() + settings.clusterRecheckIntervalMs) { [self] in
            recheckTimer = nil
            guard !isHealthy else { return }
            tick()
            scheduleRecheck(tick)
        }
    }

    // MARK: Catch-up reads

    /// Starts a catch-up read of `userId`'s log: false when one runs already (it then runs once more after it).
    func beginCatchUp(_ userId: String) -> Bool {
        if catchUpsInFlight[userId] != nil {
            catchUpsInFlight[userId] = true
            return false
        }
        catchUpsInFlight[userId] = false
        return true
    }

    /// The read ended: whether another was asked for meanwhile.
    func endCatchUp(_ userId: String) -> Bool { catchUpsInFlight.removeValue(forKey: userId) ?? false }

    func isCatchingUp(_ userId: String) -> Bool { catchUpsInFlight[userId] != nil }

    // MARK: Presence across nodes

    /// The other nodes' unexpired devices of `userId`, summed.
    func remoteDevices(of userId: String) -> (connected: Int, away: Int) { remote.devices(of: userId) }

    /// Whether some other node reported devices of `userId` (such a user is not idle).
    func hasRemotePresence(_ userId: String) -> Bool { remote.has(userId) }

    /// Users with another node's count (for tests).
    var remotePresenceUserCount: Int { remote.userCount }

    /// Another node's notice: its counts replace what it said before (0 removes it), believed for one TTL.
    func updateRemotePresence(userId: String, node: String, connected: Int, away: Int) {
        remote.update(userId: userId, node: node, connected: connected, away: away,
                      expiresAt: clock.now() + settings.clusterPresenceTtlMs)
    }

    /// Every `clusterPresenceRefreshMs`: `tick` repeats this node's counts and gets the users whose other-node counts
    /// were not repeated in time (none while the bus is down: the silence is Redis's, not the nodes').
    func startPresenceRefresh(_ tick: @escaping (_ expired: [String]) -> Void) {
        guard bus != nil else { return }
        presenceTimer = scheduler.schedule(at: clock.now() + settings.clusterPresenceRefreshMs) { [self] in
            tick(isHealthy ? remote.expire(now: clock.now()) : [])
            startPresenceRefresh(tick)
        }
    }

    /// The names of the structures here holding anything of `userId` (for tests: a forgotten user leaves nothing).
    func structures(holding userId: String) -> [String] {
        [("remotePresence", remote.has(userId)), ("catchUpsInFlight", catchUpsInFlight[userId] != nil)].filter(\.1).map(\.0)
    }
}
