import ArgumentParser
import Dispatch
import GatewayRuntime
import Glibc
import Logging
import Server
import SwitchboardConfig

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway (embedded defaults: ws://127.0.0.1:7420, no config file needed).",
        discussion: """
            Signals: SIGTERM/SIGINT drain (close 1001 to every WebSocket, /healthz and /readyz answer 503, exit after \
            at most server.drain_timeout_ms); SIGHUP reloads the TLS certificate and key for new connections.
            """)

    @OptionGroup var common: ConfigOptions
    @Option(name: .long, help: "Plain listener HOST:PORT, \"\" = none (overrides server.listen).")
    var listen: String?
    @Option(name: .customLong("tls-listen"), help: "TLS listener HOST:PORT, \"\" = none (overrides server.tls_listen).")
    var tlsListen: String?
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain (overrides server.tls_cert).")
    var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key (overrides server.tls_key).")
    var tlsKey: String?
    @Option(name: .customLong("event-loops"), help: "Event loop threads; 0 = one per core (overrides server.event_loops).")
    var eventLoops: Int?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (overrides log.level).")
    var logLevel: String?
    @Option(name: .customLong("log-format"), help: "text or json (overrides log.format).")
    var logFormat: String?
    @Flag(name: .long, help: "Echo every message on every path not otherwise routed (for conformance runs and benchmarks); without a storage path set, the database lives in a temporary directory removed at exit.")
    var echo = false

    func run() throws {
        Self.blockHandledSignals()
        var configuration = try loadConfiguration()
        // Echo runs (conformance, benchmarks) must not leave a database and key file in the working directory.
        let scratch = configuration.server.echo && !configuration.explicitlySetKeys.contains("storage.path")
            ? try ScratchDirectory() : nil
        if let scratch { configuration.storage.path = scratch.path + "/switchboard.db" }
        let preflight = Preflight.problems(configuration)
        if !preflight.problems.isEmpty {
            for problem in preflight.problems { printError("switchboard: invalid configuration: \(problem)") }
            scratch?.remove()
            throw ExitStatus.usage
        }
        let logger = makeLogger(configuration.log)
        let build = BuildInfo()
        logger.info("switchboard \(build.version) (commit \(build.commit), built \(build.buildDate))")
        logger.info("configuration: \(common.config ?? "embedded defaults")")
        var gatewayOptions = GatewayRuntime.Options(configuration)
        if let postgres = gatewayOptions.postgres {
            logger.info("storage: PostgreSQL \(postgres.redactedURL) as node \(GatewayRuntime.Options.nodeID(configuration.cluster))")
            if configuration.cluster.redisURL.isEmpty {
                logger.warning("cluster.redis_url is not set: events reach devices on other nodes only when they resume")
            }
        } else {
            logger.info("storage: \(configuration.storage.path)\(scratch == nil ? "" : " (temporary, echo mode)")")
        }
        let providers = Self.pushProviders(configuration.push)
        logger.info("push providers: \(providers.isEmpty ? "none" : providers.joined(separator: ", "))")

        let running = Running()
        let settings = ServerSettings(configuration)
        let lock: InstanceLock?
        do {
            // One process per SQLite file; nodes of a cluster share their database on purpose.
            lock = gatewayOptions.postgres == nil ? try InstanceLock(database: configuration.storage.path) : nil
            try gatewayOptions.loadPostgresPassword(configuration.cluster,
                                                    environmentPassword: getenv("SWITCHBOARD_POSTGRES_PASSWORD").map { String(cString: $0) })
            // A taken port is a runtime failure, checked before the database is touched (and again when binding).
            if let busy = preflight.inUse.first { throw ServerError.addressInUse("\(busy)") }
        } catch {
            logger.critical("cannot start: \(error)")
            scratch?.remove()
            throw ExitStatus.runtimeFailure
        }
        do {
            let push = try ProviderPushTransport(settings: ProviderPushTransport.Settings(configuration))
            running.push = push
            let gateway = try GatewayRuntime(options: gatewayOptions, pushTransport: push, logger: logger)
            running.gateway = gateway
            let application = gateway.webSocketApplication(fallback: settings.echo ? EchoApplication() : nil)
            let metrics = gateway.metricsText
            let buildMetric = build.metricText
            let server = try Server(settings: settings, application: application, httpApplication: gateway.httpApplication,
                                    extraMetrics: { buildMetric + metrics() + push.metricsText() }, readyWhenStarted: false, logger: logger)
            try server.start()
            running.server = server
        } catch {
            logger.critical("cannot start: \(error)")
            scratch?.remove()
            throw ExitStatus.runtimeFailure
        }
        // Installed once everything runs (installing them before the threads exist made the process die with SIGILL
        // under descriptor exhaustion) and returned only once registered; the line below tells supervisors and tests
        // that signals are handled now (one sent earlier has been waiting, blocked, and is handled at this point).
        let sources = Self.installSignalHandlers(running: running, settings: settings, scratch: scratch, logger: logger)
        running.server?.markReady()
        logger.info("ready: SIGTERM/SIGINT drain, SIGHUP reloads TLS")
        withExtendedLifetime((sources, lock)) { dispatchMain() }
    }

    /// What the signal handlers act on, filled in as start-up proceeds.
    private final class Running: @unchecked Sendable {
        // @unchecked: written on the main thread before the handlers are registered; they read it after.
        var server: Server?
        var gateway: GatewayRuntime?
        var push: ProviderPushTransport?
    }

    /// SIGINT/SIGTERM drain and exit 0; SIGHUP reloads the TLS pair. Handled on a serial Dispatch queue, never inside
    /// a signal handler.
    private static func installSignalHandlers(running: Running, settings: ServerSettings, scratch: ScratchDirectory?,
                                              logger: Logger) -> [DispatchSourceSignal] {
        var sources: [DispatchSourceSignal] = []
        // Their own queue, not the main one: the main queue runs only after dispatchMain(), and the registrations
        // must be complete before it — dispatchMain() unblocks the signals on the main thread, and a pending one
        // meeting the default disposition there would kill the process.
        let queue = DispatchQueue(label: "switchboard.signals")
        let registered = DispatchSemaphore(value: 0)
        // No SIG_IGN here: the signals are blocked since `blockHandledSignals()`, and ignoring a pending signal
        // would discard it (POSIX) — a SIGTERM sent during start-up would be lost.
        for sig in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setRegistrationHandler { registered.signal() }
            source.setEventHandler {
                logger.info("signal \(sig): draining connections (up to \(settings.drainTimeoutMs) ms)")
                running.server?.shutdown()
                running.gateway?.shutdown()
                running.push?.shutdown()
                scratch?.remove()
                Glibc.exit(0)
            }
            source.resume()
            sources.append(source)
        }
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        hangup.setRegistrationHandler { registered.signal() }
        hangup.setEventHandler {
            guard settings.tlsListen != nil, let server = running.server else {
                return logger.notice("SIGHUP: no TLS listener, nothing to reload")
            }
            do {
                try server.reloadTLS()
                logger.notice("SIGHUP: reloaded the TLS certificate and key; new connections use them")
            } catch {
                logger.error("SIGHUP: TLS reload failed, keeping the current certificate: \(error)")
            }
        }
        hangup.resume()
        sources.append(hangup)
        for _ in sources { registered.wait() }
        return sources
    }

    /// Blocks SIGINT, SIGTERM and SIGHUP in this thread before any other exists, so every thread inherits the mask.
    /// The dispatch sources read them with signalfd, which needs them blocked everywhere: a thread that did not block
    /// them would take delivery and, with the ignore disposition, drop the signal (a SIGTERM lost under load). Until
    /// the sources exist, a signal waits pending instead of killing a half-started process.
    private static func blockHandledSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, sig) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    private static func pushProviders(_ push: PushSection) -> [String] {
        var names: [String] = []
        if !push.apnsKeyFile.isEmpty { names.append("apns") }
        if !push.fcmServiceAccountFile.isEmpty { names.append("fcm") }
        if !push.webhookURL.isEmpty { names.append("webhook") }
        return names
    }

    private func loadConfiguration() throws -> SwitchboardConfiguration {
        try common.load { configuration in
            if let listen { configuration.server.listen = try Self.address(listen, flag: "--listen") }
            if let tlsListen { configuration.server.tlsListen = try Self.address(tlsListen, flag: "--tls-listen") }
            if let tlsCert { configuration.server.tlsCert = tlsCert }
            if let tlsKey { configuration.server.tlsKey = tlsKey }
            if let eventLoops { configuration.server.eventLoops = eventLoops }
            if let logLevel {
                guard let level = LogLevelName(rawValue: logLevel) else { throw ValidationError("--log-level: unknown level \"\(logLevel)\"") }
                configuration.log.level = level
            }
            if let logFormat {
                guard let format = LogFormatName(rawValue: logFormat) else { throw ValidationError("--log-format: expected text or json, got \"\(logFormat)\"") }
                configuration.log.format = format
            }
            if echo { configuration.server.echo = true }
        }
    }

    /// `HOST:PORT`, or `""` for no listener.
    private static func address(_ text: String, flag: String) throws -> ListenAddress? {
        if text.isEmpty { return nil }
        guard let address = ListenAddress.parse(text) else { throw ValidationError("\(flag): expected HOST:PORT or \"\", got \"\(text)\"") }
        return address
    }
}

/// A private temporary directory (mkdtemp) for an echo run's database, removed at exit.
struct ScratchDirectory {
    let path: String

    init() throws {
        let base = String(cString: getenv("TMPDIR") ?? strdup("/tmp"))
        var template = Array((base + "/switchboard-echo-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ValidationError("cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    /// Deletes the directory and the files SQLite and the key generator put there (no subdirectories).
    func remove() {
        guard let dir = opendir(path) else { return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { unlink(path + "/" + name) }
        }
        closedir(dir)
        rmdir(path)
    }
}

func makeLogger(_ section: LogSection) -> Logger {
    let json = section.format == .json
    LoggingSystem.bootstrap { label -> LogHandler in
        json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
    }
    var logger = Logger(label: "switchboard")
    logger.logLevel = Logger.Level(rawValue: section.level.rawValue) ?? .info
    return logger
}
