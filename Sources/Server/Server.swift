import Dispatch
import EventLoop
import Glibc
import Logging
import Synchronization
import TLS

/// The running gateway process: event loops, a listener per loop for each endpoint (SO_REUSEPORT), and the
/// connections they accept. Start with `start()`, stop with `shutdown()`.
public final class Server: @unchecked Sendable {
    // @unchecked: `listeners` and `states` are written once in start() before any loop sees them, then only read.
    private let shared: ServerShared
    private var group: EventLoopGroup?
    private var states: [LoopState] = []
    private var listeners: [Listener] = []
    /// The bound plain and TLS addresses (useful with port 0).
    public private(set) var plainAddress: SocketAddress?
    public private(set) var tlsAddress: SocketAddress?

    public init(settings: ServerSettings, application: WebSocketApplication?, httpApplication: HTTPApplication? = nil,
                extraMetrics: (@Sendable () -> String)? = nil, readyWhenStarted: Bool = true, logger: Logger) throws {
        let tlsContext = settings.tlsListen == nil ? nil : try Self.loadTLSContext(settings)
        shared = ServerShared(settings: settings, application: application, httpApplication: httpApplication,
                              tlsContext: tlsContext, logger: logger, extraMetrics: extraMetrics,
                              ready: readyWhenStarted)
    }

    /// Makes `/readyz` answer 200 (for a server made with `readyWhenStarted: false`, once the process around it is
    /// fully set up, e.g. its signal handlers installed).
    public func markReady() { shared.ready.store(true, ordering: .relaxed) }

    /// Each loop's counters (empty before `start()`).
    var loopMetrics: [LoopMetrics] { states.map(\.metrics) }

    private static func loadTLSContext(_ settings: ServerSettings) throws -> TLSContext {
        guard let cert = settings.tlsCertificateFile, let key = settings.tlsPrivateKeyFile else {
            throw ServerError.configuration("TLS listener needs a certificate and a private key")
        }
        do {
            return try TLSContext.server(certificateChainFile: cert, privateKeyFile: key)
        } catch {
            throw ServerError.configuration("TLS: \(error)")
        }
    }

    /// Re-reads the TLS certificate chain and private key (SIGHUP): connections accepted from now on use the new
    /// pair, open ones keep theirs. A pair that does not load leaves the current one in place and throws why.
    public func reloadTLS() throws {
        guard shared.settings.tlsListen != nil else { throw ServerError.configuration("no TLS listener configured") }
        let context = try Self.loadTLSContext(shared.settings)
        shared.tlsContext.withLock { $0 = context }
    }

    /// Binds the listeners and starts serving. Throws when a port cannot be bound.
    public func start() throws {
        // writev has no MSG_NOSIGNAL: a peer that vanished must cost an EPIPE, not the process.
        signal(SIGPIPE, SIG_IGN)
        let settings = shared.settings
        let group = try EventLoopGroup(count: settings.eventLoops)
        self.group = group
        states = group.loops.map { LoopState(loop: $0, shared: shared) }
        shared.metricsSource.withLock { $0 = MetricsRenderer(loops: states.map { ($0.loop, $0.metrics) }) }
        do {
            if let endpoint = settings.listen {
                plainAddress = try bind(endpoint, tls: false)
            }
            if let endpoint = settings.tlsListen {
                tlsAddress = try bind(endpoint, tls: true)
            }
        } catch {
            group.shutdown()
            throw error
        }
        do {
            try refuseForeignListeners()
        } catch {
            for listener in listeners { listener.close() }
            listeners = []
            group.shutdown()
            throw error
        }
        for listener in listeners {
            try runOnLoop(listener.loop) { try listener.start() }
        }
        if let plainAddress { shared.logger.info("listening on \(plainAddress) (ws://)") }
        if let tlsAddress { shared.logger.info("listening on \(tlsAddress) (wss://)") }
        shared.logger.info("\(group.loops.count) event loop(s), echo endpoint \(settings.echo ? "on" : "off")")
    }

    /// One listener per loop on the same port; with port 0 the first bind picks the port and the rest reuse it.
    private func bind(_ endpoint: ServerSettings.Endpoint, tls: Bool) throws -> SocketAddress {
        var port = endpoint.port
        var bound: SocketAddress?
        for state in states {
            let address = try SocketAddress.resolve(host: endpoint.host, port: port)
            if bound == nil { try Self.refuseSharedPort(address) }
            let listener = try Listener(address: address, loop: state.loop, reusePort: true,
                                        onAccept: { [shared] fd in Server.accept(fd, state: state, shared: shared, tls: tls) },
                                        onError: { [shared] error in
                                            state.metrics.add(state.metrics.acceptErrors)
                                            shared.logger.warning("accept failed, pausing \(Listener.backoffMilliseconds) ms: \(error)")
                                        })
            port = listener.localAddress.port
            bound = bound ?? listener.localAddress
            listeners.append(listener)
        }
        return bound!
    }

    /// SO_REUSEPORT would let a second process join our port and take a share of the clients (with its own secret
    /// and database): before binding, make sure nobody listens there yet.
    private static func refuseSharedPort(_ address: SocketAddress) throws {
        switch ListenProbe.check(address) {
        case .free: return
        case .inUse:
            throw ServerError.addressInUse("\(address) is already in use (another switchboard process, or another program, listens there)")
        case .unusable(let error):
            throw ServerError.addressInUse("cannot listen on \(address): \(error)")
        }
    }

    /// After binding: every socket listening on our addresses must be ours. Another process that passed the probe in
    /// the same instant would otherwise share the port; both then see each other here and refuse to start.
    private func refuseForeignListeners() throws {
        let ours = Set(listeners.compactMap { ListenProbe.inode(of: $0.fd) })
        for address in [plainAddress, tlsAddress].compactMap({ $0 }) {
            let foreign = ListenProbe.listeningInodes(address).subtracting(ours)
            if !foreign.isEmpty {
                throw ServerError.addressInUse("\(address) is also listened on by another process (a second switchboard started at the same time?)")
            }
        }
    }

    private static func accept(_ fd: Int32, state: LoopState, shared: ServerShared, tls: Bool) {
        state.metrics.add(state.metrics.connectionsAccepted)
        // While draining, connections are still accepted so load balancers can read /healthz and /readyz (503);
        // upgrades are refused there.
        if shared.openConnections.load(ordering: .relaxed) >= shared.settings.maxConnections {
            shared.logger.warning("connection refused: max_connections (\(shared.settings.maxConnections)) reached",
                                  metadata: ["peer": "\(SocketAddress.peer(of: fd).map { "\($0)" } ?? "?")", "reason": "max_connections"])
            close(fd)
            return
        }
        do {
            let socket = try SocketConnection(fd: fd, loop: state.loop)
            let engine = tls ? try shared.tlsContext.withLock { $0 }.map { try TLSEngine(context: $0) } : nil
            let connection = ServerConnection(socket: socket, state: state, tls: engine)
            socket.delegate = connection
            socket.context = connection // the socket keeps its protocol handler alive
            shared.openConnections.add(1, ordering: .relaxed)
            state.metrics.add(state.metrics.connectionsOpen, 1)
            state.add(connection)
        } catch {
            shared.logger.warning("cannot adopt accepted socket: \(error)")
            close(fd)
        }
    }

    /// WebSocket connections (open or closing) across all loops, counted on each loop's own thread.
    private var openWebSockets: Int {
        let count = Atomic<Int>(0)
        for state in states {
            try? runOnLoop(state.loop) {
                let n = state.connections.reduce(0) { n, connection in
                    if case .http = connection.phase { return n }
                    return n + 1
                }
                count.add(n, ordering: .relaxed)
            }
        }
        return count.load(ordering: .relaxed)
    }

    /// Number of open client connections across all loops.
    public var openConnections: Int { shared.openConnections.load(ordering: .relaxed) }

    /// Stops accepting, sends close 1001 to every WebSocket, waits up to the drain timeout for clients to go, then stops the loops.
    public func shutdown() {
        guard let group else { return }
        shared.draining.store(true, ordering: .relaxed)
        for state in states { try? runOnLoop(state.loop) { state.drain() } }
        // Listeners stay open while WebSockets drain, so health checks see 503; HTTP-only connections do not count.
        let deadline = DispatchTime.now() + .milliseconds(Int(shared.settings.drainTimeoutMs))
        while openWebSockets > 0 && DispatchTime.now() < deadline { usleep(10_000) }
        for listener in listeners { try? runOnLoop(listener.loop) { listener.close() } }
        listeners = []
        if openConnections > 0 {
            shared.logger.warning("drain timeout: dropping \(openConnections) connection(s)")
            for state in states {
                try? runOnLoop(state.loop) { for connection in state.connections { connection.close() } }
            }
        }
        group.shutdown()
        self.group = nil
        shared.logger.info("stopped")
    }

    private func runOnLoop(_ loop: EventLoop, _ body: @escaping () throws -> Void) throws {
        let semaphore = DispatchSemaphore(value: 0)
        let result = ResultBox()
        let task = UncheckedTask(body)
        loop.execute {
            do { try task.body() } catch { result.error.withLock { $0 = error } }
            semaphore.signal()
        }
        semaphore.wait()
        if let error = result.error.withLock({ $0 }) { throw error }
    }
}

public enum ServerError: Error, CustomStringConvertible {
    case configuration(String)
    /// A listen address is taken or cannot be bound.
    case addressInUse(String)
    public var description: String {
        switch self {
        case .configuration(let message), .addressInUse(let message): return message
        }
    }
}

/// Carries a closure that captures loop-owned objects to their own loop; the semaphore orders the hand-over.
private struct UncheckedTask: @unchecked Sendable {
    // @unchecked: the closure runs only on the loop that owns what it captures; the semaphore orders the hand-over.
    let body: () throws -> Void
    init(_ body: @escaping () throws -> Void) { self.body = body }
}

/// The error a loop task threw, handed back to the thread waiting for it.
private final class ResultBox: Sendable {
    let error = Mutex<Error?>(nil)
}
