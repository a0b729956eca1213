import Dispatch
import EventLoop
import Gateway
import Glibc
import HTTP1
import Logging
import Redis
import Server
import Storage
import SwitchboardConfig
import Synchronization

/// Everything the gateway needs besides the socket server: the SQLite store, the hub on its own event loop, the
/// authenticator, the client endpoint and the server API. Built once by the executable (or a test), then handed to
/// `Server` as its WebSocket and HTTP applications.
public final class GatewayRuntime: @unchecked Sendable {
    // @unchecked: immutable after init apart from the hub, which lives on `hubLoop`.
    public struct Options: Sendable {
        public var databasePath: String
        /// Set: the store is this PostgreSQL database, shared with other nodes, and `databasePath` is unused (the
        /// HS256 secret must then be configured: every node verifies the same tokens). nil: SQLite at `databasePath`.
        public var postgres: PostgresStoreOptions?
        /// Set (with `postgres`): events other nodes commit reach this node's devices through Redis
        /// (`RedisClusterBus`); nil: only after a resume.
        public var redisURL: String?
        /// This node's name (`cluster.node_id`); with a random suffix per start it names the node in presence notices,
        /// so two nodes never pass for one and a restarted node's old counts expire rather than merge.
        public var nodeId = "node"
        public var synchronousFull = false
        public var hs256Secret: String?
        public var es256PublicKeyFile: String?
        public var audience: String?
        public var issuer: String?
        public var leewaySeconds: Int64 = 30
        public var authTimeoutMs: UInt64 = 5000
        public var apiKeys: [String] = []
        public var standalone = true
        public var settings = GatewaySettings()
        public var maxCommandBytes = 16 * 1024
        /// Commands read and not yet answered, node-wide, before new ones are refused with `overloaded`
        /// (`gateway.max_pending_commands`). Bounds the memory queued work can take and keeps every command answered.
        public var maxPendingCommands = 1024
        /// Commands one socket may have pending (`gateway.max_pending_commands_per_connection`): its share of the pool.
        public var maxPendingCommandsPerConnection = 256
        /// Commands one user's sockets on this node may have pending together (`gateway.max_pending_commands_per_user`).
        public var maxPendingCommandsPerUser = 512
        /// Authenticated sockets one user may have open on this node (`gateway.max_sockets_per_user`); one more is
        /// refused (HTTP 429 or close 4029), the open ones are never closed for it.
        public var maxSocketsPerUser = 32
        /// The retry hint sent with `overloaded`.
        public var overloadRetryAfterMs = 100
        /// Where finished approvals (and, with `presenceWebhook`, `user_online`/`user_offline`) are POSTed, signed.
        public var approvalWebhookURL: String?
        /// Where invites to a phone or e-mail are POSTed, signed; nil = invites are only returned to the inviter.
        public var inviteWebhookURL: String?
        /// `gateway.webhook_secret`: the `whsec_` key signing every backend webhook; required with either URL.
        public var webhookSecret: String?
        /// `gateway.presence_webhook`: send `user_online` / `user_offline` to `approvalWebhookURL`.
        public var presenceWebhook = false
        public var retentionHours = 168
        public var keepLatestEvents = 1000
        /// Serve `/demo` and its endpoints (`server.demo`; see `SwitchboardConfiguration.demoEnabled`).
        public var demo = false
        /// Origins whose pages may call the browser endpoints (`http.cors_allowed_origins`); `auto` resolves against
        /// `standalone` and `apiKeys` (any origin in standalone mode without API keys, none otherwise).
        public var corsAllowedOrigins: CORSOrigins = .auto
        public init(databasePath: String) { self.databasePath = databasePath }
    }

    public let hub: GatewayHub
    let store: any DurableGatewayStore
    let hubLoop: EventLoop
    let scheduler: HubScheduler
    let endpoint: GatewayEndpoint
    let api: ServerAPI
    private let web: WebRoutes
    let pushOutbox: PushOutbox?

    /// `pushTransport`: where outbox jobs are sent (the push adapters); nil keeps jobs queued in the outbox unsent.
    /// `pushLeaseMs`: how long a claimed job stays with this node before another may take it (default 60 s).
    public init(
        options: Options, pushTransport: PushTransport? = nil,
        pushRetryDelay: (@Sendable (Int, Int64?) -> Int64?)? = nil, pushLeaseMs: Int64? = nil,
        logger: Logger
    ) throws {
        if let postgres = options.postgres {
            guard options.hs256Secret != nil else {
                throw ServerError.configuration(
                    "auth.hs256_secret: required with cluster.postgres_url (every node verifies the same tokens)")
            }
            do {
                store = try PostgresGatewayStore(options: postgres)
            } catch {
                throw ServerError.configuration("cluster.postgres_url: \(error)")
            }
        } else {
            var storeOptions = SQLiteStoreOptions(path: options.databasePath)
            storeOptions.synchronous = options.synchronousFull ? .full : .normal
            do {
                store = try SQLiteGatewayStore(options: storeOptions)
            } catch {
                throw ServerError.configuration("storage.path: \(error)")
            }
        }
        let secret =
            try options.hs256Secret.map { Array($0.utf8) }
            ?? Self.generatedSecret(beside: options.databasePath, logger: logger)
        var pem: String?
        if let file = options.es256PublicKeyFile {
            guard let text = Self.readFile(file) else {
                throw ServerError.configuration("auth.es256_public_key_file: cannot read \(file)")
            }
            pem = text
        }
        let authenticator: GatewayAuthenticator
        do {
            authenticator = try GatewayAuthenticator(
                hs256Secret: secret, es256PublicKeyPEM: pem, audience: options.audience,
                issuer: options.issuer, leewaySeconds: options.leewaySeconds, apiKeys: options.apiKeys)
        } catch {
            throw ServerError.configuration("auth.es256_public_key_file: \(error)")
        }
        hubLoop = try EventLoop(index: 1000)
        scheduler = HubScheduler(loop: hubLoop)
        var settings = options.settings
        settings.backendWebhooks.approvals = options.approvalWebhookURL != nil
        settings.backendWebhooks.invites = options.inviteWebhookURL != nil
        settings.backendWebhooks.presence = options.presenceWebhook && options.approvalWebhookURL != nil
        hub = GatewayHub(store: store, scheduler: scheduler, clock: scheduler, settings: settings)
        if let url = options.redisURL {
            guard options.postgres != nil else {
                throw ServerError.configuration(
                    "cluster.redis_url: set without cluster.postgres_url (nodes share events through the database)")
            }
            switch RedisEndpoint.parse(url) {
            case .success(let endpoint):
                hub.clusterBus = RedisClusterBus(
                    endpoint: endpoint,
                    nodeId: options.nodeId + "/" + String(UInt32.random(in: 0...UInt32.max), radix: 16),
                    logger: logger)
                hub.sharedAttemptLimits = RedisAttemptLimits(endpoint: endpoint, logger: logger)
                logger.info("cross-node delivery: Redis publish/subscribe at \(endpoint.address)")
            case .failure(let error): throw ServerError.configuration("cluster.redis_url: \(error.message)")
            }
        }
        let transport = try Self.outboxTransport(options: options, pushes: pushTransport)
        endpoint = GatewayEndpoint(
            hub: hub, scheduler: scheduler, authenticator: authenticator,
            authTimeoutMs: options.authTimeoutMs, maxCommandBytes: options.maxCommandBytes,
            maxPendingCommands: options.maxPendingCommands,
            shares: CommandShares.Limits(
                perConnection: options.maxPendingCommandsPerConnection,
                perUser: options.maxPendingCommandsPerUser,
                socketsPerUser: options.maxSocketsPerUser),
            overloadRetryAfterMs: options.overloadRetryAfterMs)
        api = ServerAPI(hub: hub, scheduler: scheduler, authenticator: authenticator, standalone: options.standalone)
        let cors = CORSPolicy(
            allowedOrigins: options.corsAllowedOrigins.resolved(
                standalone: options.standalone && options.apiKeys.isEmpty))
        web = WebRoutes(
            next: BrowserCORS(policy: cors, standalone: options.standalone, next: api),
            demo: options.demo ? DemoAPI(api: api) : nil)
        if let transport {
            pushOutbox = PushOutbox(
                hub: hub, store: store, scheduler: scheduler, transport: transport,
                retryDelay: pushRetryDelay ?? PushOutbox.defaultRetryDelay,
                leaseMs: pushLeaseMs ?? PushOutbox.defaultLeaseMs)
        } else {
            pushOutbox = nil
        }

        // Load state and re-arm approval deadlines on the hub's own thread before any client can reach it.
        try hubLoop.start(threadName: "sb-hub")
        let started = DispatchSemaphore(value: 0)
        let failure = ErrorBox()
        let (hub, store) = (self.hub, self.store)
        let retentionMs = Int64(options.retentionHours) * 3_600_000
        let keep = options.keepLatestEvents
        let scheduler = self.scheduler
        let outbox = pushOutbox
        hubLoop.execute {
            do { try hub.start() } catch { failure.error.withLock { $0 = error } }
            outbox?.start()
            Self.schedulePruning(
                scheduler: scheduler, store: store, retentionMs: retentionMs, keepLatest: keep, logger: logger)
            started.signal()
        }
        started.wait()
        if let error = failure.error.withLock({ $0 }) {
            throw ServerError.configuration(
                "storage: cannot load \(options.postgres?.redactedURL ?? options.databasePath): \(error)")
        }
        if !authenticator.serverAPIEnabled {
            logger.notice("server API off: set auth.api_keys to enable /v1/ backend routes")
        }
    }

    /// The WebSocket application: the gateway at /v1/ws, and `fallback` (echo) elsewhere.
    public func webSocketApplication(fallback: WebSocketApplication?) -> WebSocketApplication {
        WebSocketRouter(routes: [GatewayEndpoint.path: endpoint], fallback: fallback)
    }

    /// The HTTP application: `/v1/client.js`, the demo when enabled, then the JSON API.
    public var httpApplication: HTTPApplication { web }

    /// The hub's counters for `/metrics`.
    public var metricsText: @Sendable () -> String {
        let metrics = hub.metrics
        let outbox = pushOutbox
        let store = self.store
        let endpoint = self.endpoint
        return {
            metrics.render() + (outbox?.metricsText() ?? "")
                + Self.storageAndDeliveryMetrics(store: store, endpoint: endpoint)
                + "# HELP switchboard_store_commits_total Store write transactions committed (SQLite or PostgreSQL).\n"
                + "# TYPE switchboard_store_commits_total counter\nswitchboard_store_commits_total \(store.commitCount)\n"
        }
    }

    /// The outbox's transport: the push transport, wrapped by a `BackendWebhookTransport` when a backend webhook URL
    /// is configured (whose secret is then required and checked here, before anything starts).
    private static func outboxTransport(options: Options, pushes: PushTransport?) throws -> PushTransport? {
        var urls: [BackendWebhookEndpoint: String] = [:]
        if let url = options.approvalWebhookURL { urls[.approval] = url; urls[.presence] = url }
        if let url = options.inviteWebhookURL { urls[.invite] = url }
        guard !urls.isEmpty else { return pushes }
        for (endpoint, url) in urls where !BackendWebhookTransport.isHTTPURL(url) {
            throw ServerError.configuration(
                "\(BackendWebhookTransport.key(of: endpoint)): expected an http:// or https:// URL, got \(url)")
        }
        guard let secret = options.webhookSecret, !secret.isEmpty else {
            throw ServerError.configuration(
                "gateway.webhook_secret: required when \(BackendWebhookTransport.key(of: urls[.approval] == nil ? .invite : .approval)) is set (backend webhooks are signed)"
            )
        }
        return try BackendWebhookTransport(urls: urls, secret: secret, caFile: nil, pushes: pushes)
    }

    /// Stops the hub loop and closes the store (after the server has drained its connections).
    public func shutdown() {
        // Batches queued in the hub's last round reach the store (which commits them on close) even if the flush
        // task the hub posted itself would run after the loop stopped.
        let (hub, store, loop) = (self.hub, self.store, self.hubLoop)
        let drained = DispatchSemaphore(value: 0)
        // Work waiting for a user's records to be read runs first (it may append events: a publish for a user this
        // node did not hold).
        hubLoop.execute {
            hub.whenUserReadsSettled {
                hub.pushWaitingDeadlines()
                hub.flushWrites()
                // With a bus, the events committed while draining are announced before it stops, or other nodes'
                // devices would get them only with the user's next event: an empty job queued after every batch
                // handed over completes after theirs (the writer completes in submission order, the hub runs its
                // tasks in order), i.e. once their completions delivered and announced them.
                guard hub.clusterBus != nil else { drained.signal(); return }
                store.write(batches: [[]]) { _ in loop.execute { drained.signal() } }
            }
        }
        // Bounded: a store that cannot commit (PostgreSQL gone) fails its batches within the statement timeout.
        _ = drained.wait(timeout: .now() + .seconds(15))
        hub.clusterBus?.stop()
        hub.sharedAttemptLimits?.stop()
        hubLoop.stop()
        hubLoop.join()
        store.close()
    }

    /// Prunes old events hourly (and once at start), off the hub thread.
    private static func schedulePruning(
        scheduler: HubScheduler, store: any DurableGatewayStore, retentionMs: Int64, keepLatest: Int, logger: Logger
    ) {
        let cutoff = scheduler.now() - retentionMs
        scheduler.runBlocking {
            if let removed = try? store.pruneEvents(before: cutoff, keepLatest: keepLatest), removed > 0 {
                logger.info("pruned \(removed) events older than the retention period")
            }
        }
        _ = scheduler.schedule(at: scheduler.now() + 3_600_000) {
            schedulePruning(
                scheduler: scheduler, store: store, retentionMs: retentionMs, keepLatest: keepLatest, logger: logger)
        }
    }

    /// The standalone signing secret: read from `<db>.key`, or created there (0600) on first start.
    private static func generatedSecret(beside databasePath: String, logger: Logger) throws -> [UInt8] {
        let path = databasePath + ".key"
        if let text = readFile(path) {
            let trimmed = text.trimmingCharacters(in: " \n\r\t")
            if trimmed.utf8.count >= 32 { return Array(trimmed.utf8) }
        }
        var generator = SystemRandomNumberGenerator()
        let hex = (0..<32).map { _ in
            let b = UInt8.random(in: 0...255, using: &generator)
            return String(b >> 4, radix: 16) + String(b & 0xF, radix: 16)
        }.joined()
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ServerError.configuration("cannot create the token secret \(path): errno \(errno)") }
        defer { close(fd) }
        let line = hex + "\n"
        _ = line.withCString { write(fd, $0, strlen($0)) }
        logger.notice("generated a token signing secret in \(path) (set auth.hs256_secret to use your backend's)")
        return Array(hex.utf8)
    }

    static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The error the hub's start threw on its loop, handed back to the thread waiting for it.
private final class ErrorBox: Sendable {
    let error = Mutex<Error?>(nil)
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        return String(drop { chars.contains($0) }.reversed().drop { chars.contains($0) }.reversed())
    }
}
