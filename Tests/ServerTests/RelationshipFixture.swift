import Dispatch
import Foundation
import Gateway
@testable import GatewayRuntime
import Glibc
import HTTP1
import Logging
@testable import Server

/// A gateway server (SQLite in a temporary directory, standalone registration, one API key) for the relationship
/// tests, with blocking HTTP and WebSocket helpers. `restart()` reopens the same database.
final class RelationshipServer {
    static let apiKey = "relationship-test-key-0123456789"
    let directory: URL
    private(set) var runtime: GatewayRuntime
    private(set) var server: Server
    var port: UInt16 { server.plainAddress?.port ?? 0 }
    private let inviteWebhookURL: String?
    private let settings: GatewaySettings

    /// `settings`: the hub's tunables (limits lowered for a test).
    init(inviteWebhookURL: String? = nil, settings: GatewaySettings = GatewaySettings()) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("relationships-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.inviteWebhookURL = inviteWebhookURL
        self.settings = settings
        (runtime, server) = try Self.start(directory: directory, inviteWebhookURL: inviteWebhookURL, settings: settings)
    }

    private static func start(directory: URL, inviteWebhookURL: String?, settings gateway: GatewaySettings) throws -> (GatewayRuntime, Server) {
        var logger = Logger(label: "relationships-test")
        logger.logLevel = .critical
        var options = GatewayRuntime.Options(databasePath: directory.appendingPathComponent("gateway.db").path)
        options.hs256Secret = "relationship-test-secret-0123456789abcdef"
        options.apiKeys = [apiKey]
        options.inviteWebhookURL = inviteWebhookURL
        options.webhookSecret = PushEndToEndProviders.webhookSecret
        options.settings = gateway
        let runtime = try GatewayRuntime(options: options, logger: logger)
        var settings = ServerSettings()
        settings.listen = .init(host: "127.0.0.1", port: 0)
        settings.eventLoops = 2
        settings.drainTimeoutMs = 500
        let server = try Server(settings: settings, application: runtime.webSocketApplication(fallback: nil),
                                httpApplication: runtime.httpApplication, logger: logger)
        try server.start()
        return (runtime, server)
    }

    func restart() throws {
        server.shutdown()
        runtime.shutdown()
        (runtime, server) = try Self.start(directory: directory, inviteWebhookURL: inviteWebhookURL, settings: settings)
    }

    deinit {
        server.shutdown()
        runtime.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// One HTTP request on a fresh connection; the status and the JSON body (an object, or empty).
    func http(_ method: String, _ path: String, _ body: String? = nil, apiKey: String? = RelationshipServer.apiKey) throws -> (Int, [String: Any]) {
        let (status, object, _) = try httpResponse(method, path, body, apiKey: apiKey)
        return (status, object)
    }

    /// `http`, with the response's headers.
    func httpResponse(_ method: String, _ path: String, _ body: String? = nil,
                      apiKey: String? = RelationshipServer.apiKey) throws -> (Int, [String: Any], HTTPHeaders) {
        let client = try RawClient(port: port)
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let apiKey { request += "Authorization: Bearer \(apiKey)\r\n" }
        let bytes = Array((body ?? "").utf8)
        request += "Content-Type: application/json\r\nContent-Length: \(bytes.count)\r\n\r\n"
        client.send(Array(request.utf8) + bytes)
        let response = try client.readResponse()
        return (response.head.status, jsonObject(response.body), response.head.headers)
    }

    /// Registers a standalone device whose secret is derived from `name` (long and varied enough for
    /// `DeviceSecretRule`; the same name is the same device); returns (userId, hexCode, token).
    func register(_ name: String) throws -> (userId: String, hexCode: String, token: String) {
        let secret = "\(name)-install-secret-7f3a9c1e"
        let (status, body) = try http("POST", "/v1/devices/register", #"{"deviceToken":"\#(secret)","platform":"ios"}"#, apiKey: nil)
        guard status == 201 || status == 200, let userId = body["userId"] as? String, let hex = body["hexCode"] as? String, let token = body["token"] as? String else {
            throw TestFailure("register failed: \(status) \(body)")
        }
        return (userId, hex, token)
    }

    func socket(token: String) throws -> GatewaySocket {
        let ws = try TestWebSocketClient(port: port, path: "/v1/ws", extraHeaders: HTTPHeaders([("Authorization", "Bearer \(token)")]))
        let socket = GatewaySocket(ws)
        _ = try socket.next("welcome")
        return socket
    }
}

/// A connected `/v1/ws` client: commands with ids, and frames read until one of a wanted type arrives.
final class GatewaySocket {
    let ws: TestWebSocketClient
    private var seen: [[String: Any]] = []
    private var counter = 0

    init(_ ws: TestWebSocketClient) { self.ws = ws }

    /// The next frame of `type` (frames of other types read meanwhile are kept for later calls).
    func next(_ type: String) throws -> [String: Any] {
        if let index = seen.firstIndex(where: { $0["type"] as? String == type }) { return seen.remove(at: index) }
        while true {
            guard let frame = try ws.receive() else { throw TestFailure("connection ended waiting for \(type)") }
            guard case .text(let text) = frame else { continue }
            let object = jsonObject(Array(text.utf8))
            if object["type"] as? String == type { return object }
            seen.append(object)
        }
    }

    /// Sends a command (its `id` is added) and returns the reply.
    func command(_ fields: String) throws -> [String: Any] {
        counter += 1
        let id = "c\(counter)"
        ws.send(text: #"{"id":"\#(id)",\#(fields)}"#)
        while true {
            let reply = try next("reply")
            if reply["id"] as? String == id { return reply }
        }
    }
}

func jsonObject(_ bytes: [UInt8]) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
}

func result(_ reply: [String: Any]) -> [String: Any] { reply["result"] as? [String: Any] ?? [:] }
func errorCode(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["code"] as? String }
func eventData(_ frame: [String: Any]) -> [String: Any] { frame["data"] as? [String: Any] ?? [:] }
