import Auth
import Dispatch
import Foundation
@testable import GatewayRuntime
import Glibc
import HTTP1
import Logging
@testable import Server

/// A `GatewayRuntime` on a SQLite file in its own temporary directory plus a `Server` on an ephemeral loopback port,
/// wired like `switchboard serve` wires them. Shut down in `shutdown()` or deinit: the server first (it drains the
/// sockets that still reach the hub), then the runtime (hub loop and store).
///
/// `@unchecked Sendable`: the runtime and server are thread-safe; `stopped` is only touched by the test thread.
final class GatewayTestServer: @unchecked Sendable {
    static let apiKey = "test-api-key-0123456789"
    static let secret = "gateway-test-secret-0123456789abcdef"

    let directory: TemporaryDirectory
    let runtime: GatewayRuntime
    let server: Server
    let port: UInt16
    private var stopped = false

    var databasePath: String { directory.path + "/gateway.db" }

    /// - Parameters:
    ///   - directory: reuse the database of an earlier server (restart tests); a fresh directory when nil.
    ///   - configure: adjusts the runtime options after the test defaults are set.
    ///   - server: adjusts the listener's settings (outbound limits, timeouts).
    convenience init(directory: TemporaryDirectory? = nil, configure: (inout GatewayRuntime.Options) -> Void = { _ in },
                     server: (inout ServerSettings) -> Void = { _ in }) throws {
        try self.init(directory: directory, pushTransport: nil, pushRetryDelay: nil, configure: configure, server: server)
    }

    /// As above, with the push outbox sending through `pushTransport` (nil keeps jobs pending in the outbox) and
    /// backing off with `pushRetryDelay` (nil = the production policy). No defaults here, so a trailing `configure`
    /// closure keeps selecting the initializer above.
    init(directory: TemporaryDirectory?, pushTransport: PushTransport?, pushRetryDelay: (@Sendable (Int, Int64?) -> Int64?)?,
         pushLeaseMs: Int64? = nil, configure: (inout GatewayRuntime.Options) -> Void = { _ in }, server configureServer: (inout ServerSettings) -> Void = { _ in }) throws {
        self.directory = try directory ?? TemporaryDirectory()
        var options = GatewayRuntime.Options(databasePath: self.directory.path + "/gateway.db")
        options.hs256Secret = Self.secret
        options.apiKeys = [Self.apiKey]
        options.authTimeoutMs = 3000
        options.settings.presenceGraceMs = 300
        options.settings.approvalMinTimeoutMs = 200
        configure(&options)
        var logger = Logger(label: "gateway-test")
        logger.logLevel = .critical
        runtime = try GatewayRuntime(options: options, pushTransport: pushTransport, pushRetryDelay: pushRetryDelay, pushLeaseMs: pushLeaseMs,
                                     logger: logger)

        var settings = ServerSettings()
        settings.listen = .init(host: "127.0.0.1", port: 0)
        settings.eventLoops = 2
        settings.drainTimeoutMs = 500
        settings.webSocket.closeTimeoutMs = 100
        // As `ServerSettings(configuration)` does: the gateway's subprotocol is always offered.
        settings.webSocket.subprotocols = ["switchboard.v1"]
        configureServer(&settings)
        do {
            server = try Server(settings: settings, application: runtime.webSocketApplication(fallback: nil),
                                httpApplication: runtime.httpApplication, logger: logger)
            try server.start()
        } catch {
            runtime.shutdown()
            throw error
        }
        port = server.plainAddress?.port ?? 0
    }

    /// Stops the server, then the runtime. Idempotent.
    func shutdown() {
        guard !stopped else { return }
        stopped = true
        server.shutdown()
        runtime.shutdown()
    }

    deinit { shutdown() }

    // MARK: Tokens

    /// An HS256 client token; `expiresIn` may be negative for an expired one.
    static func token(user: String, device: String, clientType: String = "ios", expiresIn: Int64 = 3600,
                      secret: String = GatewayTestServer.secret) -> String {
        let claims: [String: Auth.JSONValue] = [
            "sub": .string(user), "device_id": .string(device), "client_type": .string(clientType),
            "exp": .int(Int64(Date().timeIntervalSince1970) + expiresIn),
        ]
        return try! JWTSigner.sign(claims: claims, key: .hmac(secret: Array(secret.utf8)))
    }

    /// A connected, authenticated device (token in the query), its `welcome` already read.
    func connect(user: String, device: String, clientType: String = "ios", query: String = "") throws -> GatewayTestClient {
        let token = Self.token(user: user, device: device, clientType: clientType)
        let client = try GatewayTestClient(port: port, path: "/v1/ws?token=\(token)" + (query.isEmpty ? "" : "&" + query))
        let welcome = try client.next("welcome")
        guard GatewayJSON.string(welcome, "data", "deviceId") == device else { throw TestFailure("bad welcome: \(welcome)") }
        return client
    }

    /// Calls the server API with the test key (or `key`); see `GatewayHTTP.request`.
    func api(_ method: String, _ path: String, _ json: Any? = nil, key: String? = GatewayTestServer.apiKey,
             headers: [(String, String)] = []) throws -> GatewayHTTP.Response {
        try GatewayHTTP.request(port: port, method, path, json, key: key, headers: headers)
    }
}

/// A directory under /tmp removed with everything in it when released.
final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked: immutable.
    let path: String

    init() throws {
        var template = Array("/tmp/switchboard-gwtest-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TestFailure("mkdtemp failed: errno \(errno)")
        }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A tiny blocking HTTP/1.1 client for the server API: one request per connection.
enum GatewayHTTP {
    struct Response: @unchecked Sendable {
        // @unchecked: the parsed JSON is only read by the thread that waits for it.
        var status: Int
        var json: [String: Any]
        var retryAfter: String? = nil
        var errorCode: String? { GatewayJSON.string(json, "error", "code") }
    }

    /// `json` is serialized with JSONSerialization, or sent as is when it is a `String` (for malformed bodies).
    static func request(port: UInt16, _ method: String, _ path: String, _ json: Any? = nil, key: String? = GatewayTestServer.apiKey,
                        headers: [(String, String)] = [], timeoutSeconds: Int = 10, source: String? = nil) throws -> Response {
        let client = try RawClient(port: port, timeoutSeconds: timeoutSeconds, source: source)
        var body: [UInt8] = []
        if let text = json as? String {
            body = Array(text.utf8)
        } else if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json))
        }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        if !body.isEmpty { head += "Content-Type: application/json\r\n" }
        head += "Content-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        client.send(Array((head + "\r\n").utf8) + body)
        let response = try client.readResponse()
        let object = response.body.isEmpty ? nil : try? JSONSerialization.jsonObject(with: Data(response.body))
        return Response(status: response.head.status, json: object as? [String: Any] ?? [:], retryAfter: response.head.headers["Retry-After"])
    }
}

/// Runs blocking work (a long-poll, a publisher) on its own thread; the test thread waits for the result.
final class BackgroundCall<T>: @unchecked Sendable {
    // @unchecked: `result` is written before the semaphore is signalled and read after the wait.
    private let done = DispatchSemaphore(value: 0)
    private var result: T?

    init(_ work: @escaping @Sendable () -> T) {
        let thread = Thread { [self] in
            result = work()
            done.signal()
        }
        thread.start()
    }

    /// The result, or nil when the work did not finish within `seconds`.
    func wait(seconds: Double) -> T? {
        done.wait(timeout: .now() + seconds) == .success ? result : nil
    }
}

/// Reading parsed JSON without a cast at every step.
enum GatewayJSON {
    static func value(_ object: Any?, _ path: [String]) -> Any? {
        var current = object
        for key in path { current = (current as? [String: Any])?[key] }
        return current
    }

    static func string(_ object: Any?, _ path: String...) -> String? { value(object, path) as? String }
    static func int(_ object: Any?, _ path: String...) -> Int64? { integer(value(object, path)) }
    static func bool(_ object: Any?, _ path: String...) -> Bool? { value(object, path) as? Bool }

    /// JSONSerialization hands numbers back as Int, Int64, Double or NSNumber depending on the platform.
    static func integer(_ value: Any?) -> Int64? {
        switch value {
        case let v as Int: return Int64(v)
        case let v as Int64: return v
        case let v as Double where v == v.rounded(): return Int64(v)
        case let v as NSNumber: return v.int64Value
        default: return nil
        }
    }
    static func object(_ object: Any?, _ path: String...) -> [String: Any]? { value(object, path) as? [String: Any] }
    static func array(_ object: Any?, _ path: String...) -> [Any]? { value(object, path) as? [Any] }
}
