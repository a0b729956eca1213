import Auth
import EventLoop
import Gateway
import GatewayProtocol
import HTTP1
import Metrics
import Server
import Synchronization

/// The client endpoint `/v1/ws`: authenticates the upgrade and gives each socket a `GatewayConnection`.
///
/// The token may come as `Authorization: Bearer <jwt>`, as `?token=<jwt>` (browsers cannot set headers), or as a
/// `bearer.<jwt>` entry in `Sec-WebSocket-Protocol` next to `switchboard.v1`. Without one the socket opens
/// unauthenticated and must send an `auth` command within `auth.timeout_ms`. `?offset=N` asks for a resume.
final class GatewayEndpoint: WebSocketApplication, Sendable {
    static let path = "/v1/ws"
    static let subprotocol = "switchboard.v1"

    let hub: GatewayHub
    let scheduler: HubScheduler
    let authenticator: GatewayAuthenticator
    let authTimeoutMs: UInt64
    /// Larger commands get `message_too_large` (the connection stays usable); WebSocket-level limits still apply above.
    let maxCommandBytes: Int
    /// The bound on commands read and not yet answered (queued for the hub, or started by it and waiting for a
    /// store read or commit). At the bound a command is refused at once with `overloaded` on its I/O loop.
    let maxPendingCommands: Int
    /// The retry hint (`retryAfterMs`) sent with `overloaded`.
    let overloadRetryAfterMs: Int
    /// Commands handed to an I/O loop's inbox and not yet taken up by the hub.
    let queuedCommands = Atomic<Int>(0)
    /// Each socket's and user's share of the pending commands, and each user's sockets (every I/O loop admits, the hub
    /// answers: one lock, taken once per command each way).
    private let shares: Mutex<CommandShares>
    /// Frames held for sockets behind a resume and not yet in their outbound queues (`GatewayConnection`'s backlog:
    /// the replay's current part and live frames waiting behind it; `/metrics`), and the most ever held at once (tests).
    let replayBacklogBytes = Atomic<Int>(0)
    let replayBacklogPeak = Atomic<Int>(0)
    private let links = Mutex<[ObjectIdentifier: HubLink]>([:])

    init(hub: GatewayHub, scheduler: HubScheduler, authenticator: GatewayAuthenticator, authTimeoutMs: UInt64, maxCommandBytes: Int,
         maxPendingCommands: Int, shares: CommandShares.Limits, overloadRetryAfterMs: Int) {
        self.hub = hub
        self.scheduler = scheduler
        self.authenticator = authenticator
        self.authTimeoutMs = authTimeoutMs
        self.maxCommandBytes = maxCommandBytes
        self.maxPendingCommands = maxPendingCommands
        self.shares = Mutex(CommandShares(limits: shares))
        self.overloadRetryAfterMs = overloadRetryAfterMs
    }

    /// The queues between `loop` (an I/O loop) and the hub; one per loop, made on first use.
    func link(for loop: EventLoop) -> HubLink {
        links.withLock { links in
            if let link = links[ObjectIdentifier(loop)] { return link }
            let link = HubLink(ioLoop: loop, hubLoop: scheduler.loop, endpoint: self)
            links[ObjectIdentifier(loop)] = link
            return link
        }
    }

    /// One delivery-latency histogram per I/O loop that has gateway sockets (an empty one before any has).
    var deliveryHistograms: [Histogram] {
        let perLoop = links.withLock { $0.values.map(\.deliverySeconds) }
        return perLoop.isEmpty ? [Histogram(bounds: Histogram.latencyBounds, unitsPerSecond: 1_000_000)] : perLoop
    }

    /// Takes one more command of `connection` unless the node, its user's sockets together or the socket itself is at
    /// its bound; the refusal says which (the caller refuses the command with `overloaded`).
    func admitCommand(from connection: GatewayConnection) -> CommandRefusal? {
        let pending = queuedCommands.load(ordering: .relaxed) + hub.metrics.commandsInFlight.load(ordering: .relaxed)
        var refusal: CommandRefusal? = pending < maxPendingCommands ? nil : .node
        if refusal == nil, let share = shares.withLock({ $0.admit(ObjectIdentifier(connection)) }) {
            refusal = .share(share)
        }
        guard refusal == nil else {
            hub.metrics.commandsRefused.add(1, ordering: .relaxed)
            return refusal
        }
        queuedCommands.add(1, ordering: .relaxed)
        return nil
    }

    /// One command of `connection` was answered (hub thread).
    func commandAnswered(by connection: GatewayConnection) {
        shares.withLock { $0.answered(ObjectIdentifier(connection)) }
    }

    /// Counts an authenticated socket of its user; false when the user is at `gateway.max_sockets_per_user`.
    func openSocket(_ connection: GatewayConnection) -> Bool {
        shares.withLock { $0.open(ObjectIdentifier(connection), user: connection.userId) }
    }

    /// The socket is gone: its count and its pending commands leave its user's shares.
    func closeSocket(_ connection: GatewayConnection) {
        shares.withLock { $0.close(ObjectIdentifier(connection)) }
    }

    var maxSocketsPerUser: Int { shares.withLock { $0.limits.socketsPerUser } }

    /// Commands pending for `user`'s sockets on this node (tests).
    func pendingCommands(of user: String) -> Int { shares.withLock { $0.pending(of: user) } }

    /// Sockets `user` has open on this node (tests).
    func sockets(of user: String) -> Int { shares.withLock { $0.sockets(of: user) } }

    /// `bytes` more (or, negative, fewer) held in replay backlogs; the peak follows the total.
    func holdReplayBacklog(_ bytes: Int) {
        let total = replayBacklogBytes.wrappingAdd(bytes, ordering: .relaxed).newValue
        var peak = replayBacklogPeak.load(ordering: .relaxed)
        while total > peak {
            let (exchanged, original) = replayBacklogPeak.compareExchange(expected: peak, desired: total, ordering: .relaxed)
            if exchanged { break }
            peak = original
        }
    }

    func upgrade(_ head: HTTPRequestHead) -> UpgradeDecision {
        guard head.method == "GET" else { return .notFound }
        let offset = head.queryItem("offset").flatMap { Int64($0) }
        if head.queryItem("offset") != nil && (offset == nil || offset! < 0) {
            return .reject(.jsonError(status: 400, code: "invalid_field", message: "offset must be a non-negative integer"))
        }
        let source = head.sourceAddress.map(SourceAddress.group)
        guard let token = Self.token(in: head) else {
            return .accept(GatewayConnection(endpoint: self, identity: nil, resumeAfter: offset, sourceAddress: source))
        }
        switch authenticator.identify(token: token) {
        case .success(let identity):
            // Checked here for a plain HTTP answer; counted when the socket opens (an accepted upgrade can still fail).
            guard shares.withLock({ $0.hasRoomForSocket(of: identity.userId) }) else {
                return .reject(.jsonError(status: 429, code: GatewayErrorCode.tooManySockets.rawValue,
                                          message: Self.tooManySocketsMessage(limit: maxSocketsPerUser)))
            }
            return .accept(GatewayConnection(endpoint: self, identity: identity, resumeAfter: offset, sourceAddress: source))
        case .failure(let error):
            return .reject(.jsonError(status: 401, code: "token_invalid", message: "\(error.code): \(error.message)",
                                      extraHeaders: HTTPHeaders([("WWW-Authenticate", "Bearer error=\"invalid_token\"")])))
        }
    }

    static func token(in head: HTTPRequestHead) -> String? {
        if let header = head.headers["Authorization"], let token = BearerToken.parse(authorization: header) { return token }
        if let token = head.queryItem("token"), !token.isEmpty { return token }
        for value in head.headers.values("Sec-WebSocket-Protocol") {
            for item in value.split(separator: ",") {
                let entry = item.trimmingSpaces
                if entry.hasPrefix("bearer.") { return String(entry.dropFirst(7)) }
            }
        }
        return nil
    }
}

extension GatewayEndpoint {
    /// Why a command was refused `overloaded`.
    enum CommandRefusal: Equatable {
        /// The node's pool (`gateway.max_pending_commands`) is full.
        case node
        /// The socket's or its user's share is spent.
        case share(CommandShares.Refusal)

        /// The error's message, with the retry hint.
        func message(retryAfterMs: Int) -> String {
            switch self {
            case .node: "the server is at capacity; retry after \(retryAfterMs) ms"
            case .share(.connection(let limit)):
                "this connection already has \(limit) commands waiting for their replies; retry after \(retryAfterMs) ms"
            case .share(.user(let limit)):
                "your connections together already have \(limit) commands waiting for their replies; retry after \(retryAfterMs) ms"
            }
        }
    }

    static func tooManySocketsMessage(limit: Int) -> String {
        "this user already has \(limit) connections open; close one before opening another"
    }
}
