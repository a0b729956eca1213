import ArgumentParser
import Dispatch
import Glibc
import Logging
import Server
import SwitchboardConfig

/// `switchboard`: the gateway's command line.
struct Switchboard: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A self-hosted realtime WebSocket gateway.",
        subcommands: [Serve.self, CheckConfig.self],
        defaultSubcommand: Serve.self)
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway (embedded defaults: ws://127.0.0.1:7420, no config file needed).")

    @Option(name: .long, help: "Configuration file (TOML, see config/switchboard.example.toml).")
    var config: String?
    @Option(name: .long, help: "Plain listener HOST:PORT (overrides server.listen).")
    var listen: String?
    @Option(name: .customLong("tls-listen"), help: "TLS listener HOST:PORT (overrides server.tls_listen).")
    var tlsListen: String?
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain (overrides server.tls_cert).")
    var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key (overrides server.tls_key).")
    var tlsKey: String?
    @Option(name: .customLong("event-loops"), help: "Event loop threads; 0 = one per core (overrides server.event_loops).")
    var eventLoops: Int?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (overrides log.level).")
    var logLevel: String?
    @Option(name: .customLong("storage-path"), help: "SQLite database file (overrides storage.path).")
    var storagePath: String?
    @Flag(name: .long, help: "Echo every message on every path not otherwise routed (for conformance runs and benchmarks).")
    var echo = false

    func run() throws {
        let configuration = try loadConfiguration()
        let logger = makeLogger(configuration.log)
        let settings = ServerSettings(configuration)
        let server: Server
        let gateway: GatewayRuntime
        let push: ProviderPushTransport
        do {
            push = try ProviderPushTransport(settings: ProviderPushTransport.Settings(configuration))
            gateway = try GatewayRuntime(options: GatewayRuntime.Options(configuration), pushTransport: push, logger: logger)
            let application = gateway.webSocketApplication(fallback: settings.echo ? EchoApplication() : nil)
            server = try Server(settings: settings, application: application, httpApplication: gateway.httpApplication,
                                extraMetrics: gateway.metricsText, logger: logger)
            try server.start()
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(1)
        }
        // Signals are handled on a Dispatch queue, never inside a signal handler.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .main)
            source.setEventHandler {
                logger.info("signal \(sig): draining connections (up to \(settings.drainTimeoutMs) ms)")
                server.shutdown()
                gateway.shutdown()
                push.shutdown()
                Glibc.exit(0)
            }
            source.resume()
            sources.append(source)
        }
        withExtendedLifetime(sources) { dispatchMain() }
    }

    private func loadConfiguration() throws -> SwitchboardConfiguration {
        var configuration = SwitchboardConfiguration()
        do {
            if let config { configuration = try SwitchboardConfiguration.load(path: config) }
            if let listen {
                guard let address = ListenAddress.parse(listen) else { throw ValidationError("--listen: expected HOST:PORT, got \"\(listen)\"") }
                configuration.server.listen = address
            }
            if let tlsListen {
                guard let address = ListenAddress.parse(tlsListen) else { throw ValidationError("--tls-listen: expected HOST:PORT, got \"\(tlsListen)\"") }
                configuration.server.tlsListen = address
            }
            if let tlsCert { configuration.server.tlsCert = tlsCert }
            if let tlsKey { configuration.server.tlsKey = tlsKey }
            if let eventLoops { configuration.server.eventLoops = eventLoops }
            if let storagePath { configuration.storage.path = storagePath }
            if let logLevel {
                guard let level = LogLevelName(rawValue: logLevel) else { throw ValidationError("--log-level: unknown level \"\(logLevel)\"") }
                configuration.log.level = level
            }
            if echo { configuration.server.echo = true }
            if configuration.server.echo { configuration.applyEchoDefaults() }
            try configuration.validate()
        } catch let error as ConfigError {
            printError("switchboard: invalid configuration: \(error)")
            throw ExitCode(2)
        }
        return configuration
    }
}

struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config", abstract: "Validate a configuration file without starting.")

    @Argument(help: "The configuration file.")
    var file: String

    func run() throws {
        do {
            var configuration = try SwitchboardConfiguration.load(path: file)
            if configuration.server.echo { configuration.applyEchoDefaults() }
            try configuration.validate()
            print("\(file): OK")
        } catch {
            printError("\(error)")
            throw ExitCode(2)
        }
    }
}

func printError(_ message: String) {
    var stderr = StandardError()
    print(message, to: &stderr)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) { _ = string.withCString { Glibc.write(2, $0, strlen($0)) } }
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

Switchboard.main()
