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
    private let links = Mutex<[ObjectIdentifier: HubLink]>([:])

    init(hub: GatewayHub, scheduler: HubScheduler, authenticator: GatewayAuthenticator, authTimeoutMs: UInt64, maxCommandBytes: Int,
         maxPendingCommands: Int, overloadRetryAfterMs: Int) {
        self.hub = hub
        self.scheduler = scheduler
        self.authenticator = authenticator
        self.authTimeoutMs = authTimeoutMs
        self.maxCommandBytes = maxCommandBytes
        self.maxPendingCommands = maxPendingCommands
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

    /// Takes one more command unless the node is at its bound (then the caller refuses it with `overloaded`).
    func admitCommand() -> Bool {
        let pending = queuedCommands.load(ordering: .relaxed) + hub.metrics.commandsInFlight.load(ordering: .relaxed)
        guard pending < maxPendingCommands else {
            hub.metrics.commandsRefused.add(1, ordering: .relaxed)
            return false
        }
        queuedCommands.add(1, ordering: .relaxed)
        return true
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
