/// Presence across nodes (docs/CLUSTER.md, "Presence across nodes"): each node announces on the cluster bus how
/// many devices of a user it has whenever that changes and repeats it every `clusterPresenceRefreshMs` for every user
/// connected to it; every node keeps the other nodes' counts, each believed for `clusterPresenceTtlMs`, and feeds its
/// own `PresenceMachine` per user the sum of its devices and theirs. Every node computes the same status from the same
/// counts and tells only the devices connected to it, so each contact's device hears each change once. A node killed
/// without a word stops repeating; its counts expire and the grace period runs as for any last device leaving.
extension GatewayHub {
    /// The user's devices on every node: this node's plus the other nodes' unexpired counts.
    func clusterDevices(of userId: String) -> (connected: Int, away: Int) {
        let (local, remote) = (localDevices(of: userId), cluster.remoteDevices(of: userId))
        return (local.connected + remote.connected, local.away + remote.away)
    }

    func localDevices(of userId: String) -> (connected: Int, away: Int) {
        // Counted in place: copying the states out (an array, a retain and release each) on every connect and
        // disconnect made a ramp of 10 000 devices of one user quadratic on the hub.
        guard let states = clients[userId] else { return (0, 0) }
        return (states.count, states.values.reduce(0) { $1.isAway ? $0 + 1 : $0 })
    }

    /// Another node's notice: its counts replace what it said before (0 removes it), then the aggregate is stepped.
    func clusterPresence(userId: String, node: String, connected: Int, away: Int) {
        cluster.updateRemotePresence(userId: userId, node: node, connected: connected, away: away)
        stepAggregatePresence(of: userId)
    }

    /// Every `clusterPresenceRefreshMs`: repeats this node's counts and counts out other nodes' that were not repeated
    /// in time. While the bus is down nothing expires (the silence is Redis's, not the nodes'): on `restored` every
    /// count is believed for one more TTL.
    func scheduleClusterPresenceRefresh() {
        guard let bus = cluster.bus else { return }
        cluster.startPresenceRefresh { [self] expired in
            for userId in clients.keys {
                let local = localDevices(of: userId)
                bus.announcePresence(userId: userId, connected: local.connected, away: local.away)
            }
            for userId in expired { stepAggregatePresence(of: userId) }
        }
    }
}
