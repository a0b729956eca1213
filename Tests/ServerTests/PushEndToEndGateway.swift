import Dispatch
import Foundation
@testable import Gateway
@testable import GatewayRuntime
@testable import Server

/// One end-to-end push setup: a `GatewayTestServer` (runtime + server on a temp SQLite file, real sockets) whose outbox
/// sends through a `ProviderPushTransport` pointed at the shared fakes. Devices register over the WebSocket protocol,
/// leave, and the backend acts over the server API; tests then look at what the fakes received and at the outbox rows.
///
/// Not thread-safe: one test thread drives it. Shut down in `shutdown()` or deinit (server and runtime first, so
/// nothing sends any more, then the transport's HTTP thread).
final class PushEndToEndGateway {
    let providers: PushEndToEndProviders
    let server: GatewayTestServer
    let transport: ProviderPushTransport?
    /// The FCM service account's e-mail, unique to this setup: its OAuth fetches are ours.
    let fcmClientEmail = "push-\(UUID().uuidString.lowercased())@demo.iam.gserviceaccount.com"
    private var stopped = false

    /// Retries quickly (30 ms) but never sooner than the provider's Retry-After; gives up after 5 attempts.
    static let fastRetry: @Sendable (Int, Int64?) -> Int64? = { attempt, retryAfterMs in
        attempt < 5 ? max(30, retryAfterMs ?? 0) : nil
    }

    /// - Parameters:
    ///   - directory: an earlier setup's database (restart tests).
    ///   - sending: false runs the runtime without a transport, so jobs stay pending in the outbox.
    ///   - webhookPath: the fake webhook's path, which scripts its answer.
    ///   - retryDelay: the outbox's backoff; nil = the production policy.
    ///   - configure: adjusts the runtime options (the acknowledgement delays).
    init(
        directory: TemporaryDirectory? = nil, sending: Bool = true, webhookPath: String = "/ok",
        retryDelay: (@Sendable (Int, Int64?) -> Int64?)? = PushEndToEndGateway.fastRetry,
        configure: (inout GatewayRuntime.Options) -> Void = { _ in }
    ) throws {
        providers = try PushEndToEndProviders.shared.get()
        transport =
            sending
            ? try ProviderPushTransport(
                settings: providers.settings(clientEmail: fcmClientEmail, webhookPath: webhookPath)) : nil
        do {
            server = try GatewayTestServer(
                directory: directory, pushTransport: transport, pushRetryDelay: retryDelay, configure: configure)
        } catch {
            transport?.shutdown()
            throw error
        }
    }

    func shutdown() {
        guard !stopped else { return }
        stopped = true
        server.shutdown()
        transport?.shutdown()
    }

    deinit { shutdown() }

    // MARK: Devices

    /// Connects `device`, sends each command (`push_register`, `set_notification_settings`, `session_attach`…) expecting
    /// an ok reply, then disconnects and waits until the hub no longer counts the device as connected.
    func offlineDevice(user: String, device: String, clientType: String = "ios", commands: [(String, [String: Any])])
        throws
    {
        let client = try server.connect(user: user, device: device, clientType: clientType)
        for (type, fields) in commands {
            let reply = try client.command(type, fields)
            guard reply["ok"] as? Bool == true else { throw TestFailure("\(type) failed: \(reply)") }
        }
        client.disconnect()
        guard eventually({ self.connectedDevices(of: user).contains(device) == false }) else {
            throw TestFailure("\(device) still connected")
        }
    }

    /// Device ids of `user` the hub counts as connected.
    func connectedDevices(of user: String) -> [String] {
        onHub { $0.connectedDevices(of: user).map(\.deviceId) }
    }

    /// The push tokens the hub holds for `device` (of any user).
    func tokens(of device: String) -> [PushTokenRecord] {
        onHub { hub in hub.pushTokens.keys.filter { $0.deviceId == device }.flatMap { hub.pushTokens[$0] ?? [] } }
    }

    private func onHub<T>(_ body: @escaping @Sendable (GatewayHub) -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<T>()
        let hub = server.runtime.hub
        server.runtime.hubLoop.execute {
            result.value = body(hub)
            done.signal()
        }
        done.wait()
        return result.value!
    }

    // MARK: Backend

    func createSession(user: String, id: String) throws {
        let created = try server.api("POST", "/v1/sessions", ["userId": user, "sessionId": id, "title": "Build"])
        guard created.status == 201 else { throw TestFailure("session: \(created.status) \(created.json)") }
    }

    /// Requests an approval in `session`; returns its id and deadline (Unix ms).
    func requestApproval(
        session: String, toolName: String = "shell", summary: String = "rm -rf build",
        timeoutSeconds: Double = 30
    ) throws -> (id: String, expiresAt: Int64) {
        let created = try server.api(
            "POST", "/v1/sessions/\(session)/approvals",
            ["toolName": toolName, "summary": summary, "timeoutSeconds": timeoutSeconds])
        guard created.status == 201, let id = GatewayJSON.string(created.json, "requestId"),
            let expiresAt = GatewayJSON.int(created.json, "expiresAt")
        else {
            throw TestFailure("approval: \(created.status) \(created.json)")
        }
        return (id, expiresAt)
    }

    // MARK: Outbox

    func job(_ id: Int64) -> PushJobRecord? { try? server.runtime.store.pushJob(id: id) }

    /// Every outbox row so far (ids count up from 1 in a fresh database).
    func jobs() -> [PushJobRecord] {
        var all: [PushJobRecord] = []
        while let next = job(Int64(all.count + 1)) { all.append(next) }
        return all
    }

    /// Polls `condition` every 10 ms until it holds or `seconds` pass.
    func eventually(seconds: Double = 4, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }
}

/// A value written on the hub thread before a semaphore signals, read after the wait.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// Reading an APNs request the fake logged.
enum APNsRecord {
    static func payload(_ record: [String: Any]?) -> [String: Any]? { record.flatMap(PushEndToEndFakeProvider.body) }
    static func aps(_ record: [String: Any]?) -> [String: Any]? { payload(record)?["aps"] as? [String: Any] }
    static func header(_ record: [String: Any]?, _ name: String) -> String? {
        record.flatMap { PushEndToEndFakeProvider.header($0, name) }
    }
}
