import ArgumentParser
import EventLoop
import Glibc

/// Options every gateway scenario shares: how to authenticate devices (`--jwt-secret`) and the backend
/// (`--api-key`), where the server API is, and how many backend threads call it.
struct GatewayOptions: ParsableArguments {
    @Option(help: "The server's auth.hs256_secret: the harness mints each device's HS256 token with it.")
    var jwtSecret: String

    @Option(help: "One of the server's auth.api_keys, for the server API (users, contacts, sessions, approvals, events).")
    var apiKey: String

    @Option(help: "Server API base, http://host:port (default: the host and port of --url).")
    var apiUrl: String?

    @Option(help: "Backend threads calling the server API, each with one blocking keep-alive connection.")
    var backendThreads = 4

    @Option(help: "After the setup calls, create this file and wait (at most 10 minutes) until it is removed before connecting: time for a script to restart nodes that must load what the setup made (loadtest/bench/cluster.sh).")
    var setupDone: String?

    func validate() throws {
        guard (1...256).contains(backendThreads) else { throw ValidationError("--backend-threads must be 1 … 256") }
        if let apiUrl, !apiUrl.hasPrefix("http://") {
            throw ValidationError("--api-url must start with http:// (the backend client speaks plain HTTP)")
        }
    }
}

/// Everything the gateway scenarios need besides the socket settings, resolved once on the main thread.
/// Immutable and `Sendable`.
struct GatewayEnvironment: Sendable {
    let minter: JWTMinter
    let apiAddress: SocketAddress
    let apiHostHeader: String
    let apiKey: String
    let backendThreads: Int
    /// Upgrade path of `/v1/ws` (the `--url` path, or /v1/ws when it is "/").
    let basePath: String
    /// A fresh prefix for every user id of this run, so runs against the same database never see each other.
    let runID: String
    /// `--setup-done`: created after the setup, waited on until removed.
    let setupDone: String?

    /// Resolves the API address and checks the combination of options.
    init(options: GatewayOptions, common: CommonOptions) throws {
        guard common.workers == 1, common.loops == 1 else {
            throw ValidationError("gateway scenarios run on one loop in one process: use --workers 1 --loops 1")
        }
        let target = try TargetURL(parsing: common.url)
        basePath = target.path == "/" ? "/v1/ws" : target.path
        var host = target.host
        var port = target.port
        if let apiUrl = options.apiUrl {
            let parsed = try TargetURL(parsing: "ws://" + apiUrl.dropFirst("http://".count))
            host = parsed.host
            port = parsed.port
        } else if target.isSecure {
            throw ValidationError("with a wss:// --url, give the plain-HTTP server API with --api-url http://host:port")
        }
        apiAddress = try SocketAddress.resolve(host: host, port: port)
        apiHostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        apiKey = options.apiKey
        backendThreads = options.backendThreads
        setupDone = options.setupDone
        minter = try JWTMinter(secret: options.jwtSecret)
        var random = FastRandom(seed: MonotonicClock.nanoseconds() ^ UInt64(UInt32(bitPattern: getpid())) << 32)
        runID = "lt" + String(random.next() & 0xFF_FFFF_FFFF, radix: 36)
    }
}
