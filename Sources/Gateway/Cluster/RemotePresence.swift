/// Other nodes' devices per user and node, as their presence notices last said (`ClusterLink`), each
/// count believed until its `expiresAt`. Pure: time is passed in. Hub thread only.
///
/// Bounded by the users connected on other nodes: a count exists only while a node keeps repeating a nonzero one;
/// a 0 removes it, and one not repeated goes at the first `expire` after its TTL. A user holding counts here is not
/// idle (`GatewayHub.isIdle`), so the counts go before the user can be forgotten, never after.
struct RemotePresence {
    /// Another node's devices of one user, as its last presence notice said, believed until `expiresAt`.
    struct Devices: Equatable {
        var connected: Int
        var away: Int
        var expiresAt: Int64
    }

    private var byUser: [String: [String: Devices]] = [:]

    /// Users with a count of some node.
    var userCount: Int { byUser.count }

    /// Whether some node reported devices of `userId`.
    func has(_ userId: String) -> Bool { byUser[userId] != nil }

    /// The other nodes' devices of `userId`, summed.
    func devices(of userId: String) -> (connected: Int, away: Int) {
        var total = (connected: 0, away: 0)
        for remote in (byUser[userId] ?? [:]).values {
            total.connected += remote.connected
            total.away += remote.away
        }
        return total
    }

    /// `node`'s notice: its count replaces what it said before; 0 connected removes it.
    mutating func update(userId: String, node: String, connected: Int, away: Int, expiresAt: Int64) {
        if connected > 0 {
            byUser[userId, default: [:]][node] = Devices(connected: connected, away: away, expiresAt: expiresAt)
        } else {
            byUser[userId]?[node] = nil
            if byUser[userId]?.isEmpty == true { byUser[userId] = nil }
        }
    }

    /// Removes the counts expired at `now` (`expiresAt <= now`); returns the users that lost one.
    mutating func expire(now: Int64) -> [String] {
        var changed: [String] = []
        for (userId, nodes) in byUser where nodes.values.contains(where: { $0.expiresAt <= now }) {
            let kept = nodes.filter { $0.value.expiresAt > now }
            byUser[userId] = kept.isEmpty ? nil : kept
            changed.append(userId)
        }
        return changed
    }

    /// Every count is believed until `expiresAt` (the bus works again: the repeats were lost with it, not the devices).
    mutating func renew(expiresAt: Int64) {
        for userId in byUser.keys {
            for node in byUser[userId]!.keys { byUser[userId]![node]!.expiresAt = expiresAt }
        }
    }
}
