import Synchronization

/// What a cluster bus tells a node (docs/CLUSTER.md, "Cross-node delivery").
public enum ClusterSignal: Sendable, Equatable {
    /// `userId`'s log holds events up to `offset` (committed by some node, possibly this one).
    case advanced(userId: String, offset: Int64)
    /// Another node has `connected` devices of `userId` (`away` of them away); 0 means none any more. Repeated by that
    /// node while the devices stay (docs/CLUSTER.md, "Presence across nodes"); a node's own notices are not signalled.
    case presence(userId: String, node: String, connected: Int, away: Int)
    /// Another node changed `userId`'s records (user, devices, contacts, push tokens, notification settings): a node
    /// holding them re-reads them (docs/CLUSTER.md, "Users on several nodes"). A node's own notices are not signalled.
    case changed(userId: String)
    /// Notices may be missed from now on (the link to the bus broke, or notices were dropped): until `restored`, the
    /// node re-reads its connected users' logs on a timer so events are late, never lost.
    case lost
    /// The bus works again: the node reads every connected user's log once and relies on notices from here on.
    case restored
}

/// Tells other nodes that a user's log grew, and this node that another's did (Centrifuge's broker, reduced to
/// notices): a notice carries no event, only `(user, latest offset)`, so a lost or repeated one costs a store read,
/// never an event — the store holds every event.
///
/// Every node hears every notice, for users it hosts devices of or not: a node keeps its memory of each user's latest
/// offset current with them, so a device connecting later starts from the log's real end (docs/CLUSTER.md, "Why one
/// shared channel").
///
/// Adapters: `InMemoryClusterBus` (hubs in one process, for tests) and the server's Redis bus. Every method may be
/// called from the hub thread and must not block it; `signals` is called from any thread.
public protocol ClusterBus: AnyObject, Sendable {
    /// Starts the bus; each notice or change of health is handed to `signals`.
    func start(signals: @escaping @Sendable (ClusterSignal) -> Void)
    /// After a commit: `userId`'s log now reaches `offset`. Queued, coalesced per user, never blocking.
    func announce(userId: String, offset: Int64)
    /// This node now has `connected` devices of `userId`, `away` of them away (also repeated as a refresh). Queued,
    /// coalesced per user (the latest counts win), never blocking.
    func announcePresence(userId: String, connected: Int, away: Int)
    /// After a commit: `userId`'s records changed. Queued, coalesced per user, never blocking.
    func announceChange(userId: String)
    /// Stops the bus's threads; no signal is sent after it returns.
    func stop()
}

/// Hubs in one process sharing one bus (unit tests): an announcement reaches every member, the announcing one
/// included, as Redis does. `healthy = false` drops notices and signals `lost`, like a dead Redis.
public final class InMemoryClusterBus: Sendable {
    private let state = Mutex<(members: [Int: (@Sendable (ClusterSignal) -> Void)?], healthy: Bool, next: Int)>(([:], true, 0))

    public init() {}

    /// A bus for one hub, joined to the others made by this one.
    public func member() -> ClusterBus {
        let id = state.withLock { s in defer { s.next += 1 }; s.members[s.next] = .some(nil); return s.next }
        return InMemoryClusterMember(bus: self, id: id)
    }

    /// Breaks (`false`) or restores (`true`) the bus for every member, sending `lost` or `restored` to each.
    public func setHealthy(_ healthy: Bool) {
        let receivers = state.withLock { s -> [@Sendable (ClusterSignal) -> Void] in
            s.healthy = healthy
            return s.members.values.compactMap { $0 }
        }
        for signals in receivers { signals(healthy ? .restored : .lost) }
    }

    fileprivate func start(_ id: Int, _ signals: @escaping @Sendable (ClusterSignal) -> Void) {
        let healthy = state.withLock { s in s.members[id] = signals; return s.healthy }
        signals(healthy ? .restored : .lost)
    }

    fileprivate func announce(userId: String, offset: Int64) {
        let receivers = state.withLock { s -> [@Sendable (ClusterSignal) -> Void] in
            guard s.healthy else { return [] }
            return s.members.values.compactMap { $0 }
        }
        for signals in receivers { signals(.advanced(userId: userId, offset: offset)) }
    }

    fileprivate func announcePresence(from id: Int, userId: String, connected: Int, away: Int) {
        let receivers = state.withLock { s -> [@Sendable (ClusterSignal) -> Void] in
            guard s.healthy else { return [] }
            return s.members.filter { $0.key != id }.values.compactMap { $0 }
        }
        for signals in receivers { signals(.presence(userId: userId, node: "\(id)", connected: connected, away: away)) }
    }

    fileprivate func announceChange(from id: Int, userId: String) {
        for signals in others(than: id) { signals(.changed(userId: userId)) }
    }

    private func others(than id: Int) -> [@Sendable (ClusterSignal) -> Void] {
        state.withLock { s in
            guard s.healthy else { return [] }
            return s.members.filter { $0.key != id }.values.compactMap { $0 }
        }
    }

    fileprivate func stop(_ id: Int) { state.withLock { s in s.members[id] = .some(nil) } }
}

private final class InMemoryClusterMember: ClusterBus {
    let bus: InMemoryClusterBus
    let id: Int
    init(bus: InMemoryClusterBus, id: Int) { (self.bus, self.id) = (bus, id) }
    func start(signals: @escaping @Sendable (ClusterSignal) -> Void) { bus.start(id, signals) }
    func announce(userId: String, offset: Int64) { bus.announce(userId: userId, offset: offset) }
    func announcePresence(userId: String, connected: Int, away: Int) {
        bus.announcePresence(from: id, userId: userId, connected: connected, away: away)
    }
    func announceChange(userId: String) { bus.announceChange(from: id, userId: userId) }
    func stop() { bus.stop(id) }
}
