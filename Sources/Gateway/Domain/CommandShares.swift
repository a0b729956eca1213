/// Each socket's and each user's share of the node's pending-command pool, and each user's sockets on this node.
///
/// The node-wide bound (`gateway.max_pending_commands`) alone let one user with a few pipelining sockets take the
/// whole pool, so every other user's commands were refused `overloaded`. With a share per socket and per user, the
/// one who floods is refused while everyone else is still served. A plain value with no clock and no threads:
/// commands are admitted on every I/O loop and answered on the hub, so the endpoint keeps it behind one lock.
///
/// A command counts from the moment it is admitted until it is answered. A socket that closes gives back whatever it
/// still had pending: the hub may still answer those, and such a late answer is ignored.
public struct CommandShares: Sendable {
    /// The bounds; each at least 1.
    public struct Limits: Sendable, Equatable {
        /// Commands one socket may have pending (`gateway.max_pending_commands_per_connection`).
        public var perConnection: Int
        /// Commands all of one user's sockets on this node may have pending together (`gateway.max_pending_commands_per_user`).
        public var perUser: Int
        /// Authenticated sockets one user may have open on this node (`gateway.max_sockets_per_user`).
        public var socketsPerUser: Int

        public init(perConnection: Int, perUser: Int, socketsPerUser: Int) {
            self.perConnection = max(1, perConnection)
            self.perUser = max(1, perUser)
            self.socketsPerUser = max(1, socketsPerUser)
        }
    }

    /// Which share a refused command would have exceeded.
    public enum Refusal: Equatable, Sendable {
        case connection(limit: Int)
        case user(limit: Int)
    }

    private struct UserShare {
        var pending = 0
        var sockets = 0
    }

    public let limits: Limits
    private var users: [String: UserShare] = [:]
    /// Pending commands of each open socket, keyed by the socket's handler object. A handler is never freed while the
    /// hub still holds a command of it, so a key cannot be reused by a new socket while an old answer is on its way.
    private var connections: [ObjectIdentifier: (user: String, pending: Int)] = [:]

    public init(limits: Limits) { self.limits = limits }

    /// Whether `user` may open one more socket (nothing is counted: the upgrade is refused early with this, and
    /// `open` decides).
    public func hasRoomForSocket(of user: String) -> Bool {
        (users[user]?.sockets ?? 0) < limits.socketsPerUser
    }

    /// Counts an authenticated socket of `user`; false (nothing counted) when the user already has `socketsPerUser`.
    public mutating func open(_ connection: ObjectIdentifier, user: String) -> Bool {
        guard connections[connection] == nil else { return true }
        guard hasRoomForSocket(of: user) else { return false }
        users[user, default: UserShare()].sockets += 1
        connections[connection] = (user, 0)
        return true
    }

    /// The socket is gone: its own count and its pending commands leave the user's share.
    public mutating func close(_ connection: ObjectIdentifier) {
        guard let entry = connections.removeValue(forKey: connection) else { return }
        update(entry.user) { share in
            share.sockets -= 1
            share.pending -= entry.pending
        }
    }

    /// Takes one more command of `connection` unless its socket or its user is at its share (then nothing is counted
    /// and the command is refused). A socket that is not open here (never counted, or closed) is not limited.
    public mutating func admit(_ connection: ObjectIdentifier) -> Refusal? {
        guard let entry = connections[connection] else { return nil }
        guard entry.pending < limits.perConnection else { return .connection(limit: limits.perConnection) }
        guard (users[entry.user]?.pending ?? 0) < limits.perUser else { return .user(limit: limits.perUser) }
        connections[connection]?.pending += 1
        users[entry.user, default: UserShare()].pending += 1
        return nil
    }

    /// One command of `connection` was answered (or dropped unanswered with its socket).
    public mutating func answered(_ connection: ObjectIdentifier) {
        guard let entry = connections[connection], entry.pending > 0 else { return }
        connections[connection]?.pending -= 1
        update(entry.user) { $0.pending -= 1 }
    }

    /// Commands pending for `user` on this node (for metrics and tests).
    public func pending(of user: String) -> Int { users[user]?.pending ?? 0 }

    /// Sockets `user` has open on this node.
    public func sockets(of user: String) -> Int { users[user]?.sockets ?? 0 }

    private mutating func update(_ user: String, _ change: (inout UserShare) -> Void) {
        var share = users[user] ?? UserShare()
        change(&share)
        users[user] = share.sockets == 0 && share.pending <= 0 ? nil : share
    }
}
