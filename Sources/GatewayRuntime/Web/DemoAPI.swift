import Gateway
import GatewayProtocol
import HTTP1
import Server
import ServerAPIRoutes

/// The demo page's own endpoints (only when the demo is enabled). Each acts for the user of the device token it is
/// called with — never for anyone else — and does what an app backend would do for that user:
///
/// - `POST /demo/api/devices` `{"platform":"desktop"}` → `{userId, deviceId, token}`: a token for one more device of
///   the caller's user (standalone registration makes one user per device; the demo needs two devices of one user).
/// - `POST /demo/api/session` → the caller's demo session `demo-<userId>` (created on first use).
/// - `POST /demo/api/approvals` `{"summary"?, "toolName"?, "timeoutSeconds"?}` → `201 {session, approval}`: creates the
///   caller's demo session `demo-<userId>` if needed and posts an approval request to it, as a backend would.
/// - `GET /demo/api/stats` → the node's gauges and counters (the numbers `/metrics` shows) for the live view.
final class DemoAPI: Sendable {
    static let prefix = DemoRoutes.prefix

    private let api: ServerAPI

    init(api: ServerAPI) { self.api = api }

    private struct NewDevice: Encodable { var userId: String; var deviceId: String; var token: String }
    private struct Posted: Encodable { var session: SessionData; var approval: ApprovalData }
    private struct Stats: Encodable {
        var connectedDevices: Int; var onlineUsers: Int; var pendingApprovals: Int; var eventsCommitted: Int
        var messagesSent: Int; var commands: Int; var approvalsResolved: Int; var approvalsTimedOut: Int
    }

    func handle(_ request: HTTPRequest, respond: @escaping ServerAPI.Respond) -> Bool {
        let endpoint: DemoRoutes.Endpoint
        switch DemoRoutes.match(request.head) {
        case .success(let found): endpoint = found
        case .failure(let refusal): respond(refusal.response); return true
        }
        var caller: ClientIdentity?
        if endpoint.needsDevice {
            guard let found = api.deviceIdentity(request, respond: respond) else { return true }
            caller = found
        }
        switch (endpoint.request(body: request.body), caller) {
        case (.failure(let refusal), _):
            respond(refusal.response)
        case (.success(.stats), _):
            let m = api.hub.metrics
            respond(
                ServerAPI.ok(
                    Stats(
                        connectedDevices: m.connectedDevices.load(ordering: .relaxed),
                        onlineUsers: m.onlineUsers.load(ordering: .relaxed),
                        pendingApprovals: m.pendingApprovals.load(ordering: .relaxed),
                        eventsCommitted: m.eventsCommitted.load(ordering: .relaxed),
                        messagesSent: m.messagesSent.load(ordering: .relaxed),
                        commands: m.commands.load(ordering: .relaxed),
                        approvalsResolved: m.approvalsResolved.load(ordering: .relaxed),
                        approvalsTimedOut: m.approvalsTimedOut.load(ordering: .relaxed))))
        case (.success(.addDevice(let body)), let caller?):
            // Through the revocation check: a deleted user's token must not mint one that outlives the deletion.
            let authenticator = api.authenticator
            api.ownDevice(caller, respond: respond) { hub, _ in
                let identity = ClientIdentity(
                    userId: caller.userId, deviceId: "dev_" + hub.randomToken(), clientType: body.platform ?? "desktop")
                guard let token = try? authenticator.issueToken(for: identity) else {
                    return respond(ServerAPI.failure(GatewayError(.internalError, "could not sign a token")))
                }
                respond(
                    ServerAPI.ok(
                        NewDevice(userId: identity.userId, deviceId: identity.deviceId, token: token), status: 201))
            }
        case (.success(.session), let caller?):
            api.ownDevice(caller, respond: respond) { hub, _ in
                Self.demoSession(of: caller, hub: hub, completion: ServerAPI.reply(respond))
            }
        case (.success(.approval(let body)), let caller?):
            let timeout: Int64?
            do { timeout = try ApprovalTimeout(api.hub.settings).milliseconds(seconds: body.timeoutSeconds) } catch {
                respond(ServerAPI.failure(error))
                return true
            }
            api.ownDevice(caller, respond: respond) { hub, _ in
                Self.demoSession(of: caller, hub: hub) { created in
                    switch created {
                    case .failure(let error):
                        respond(ServerAPI.failure(error))
                    case .success(let session):
                        hub.requestApproval(
                            sessionId: session.sessionId, toolName: body.toolName ?? "shell",
                            summary: body.summary ?? "rm -rf build/", details: nil, timeoutMs: timeout,
                            idempotencyKey: nil
                        ) { result in
                            ServerAPI.reply(respond, status: 201)(result.map { Posted(session: session, approval: $0) })
                        }
                    }
                }
            }
        case (.success, nil):
            // Every endpoint but the stats needs the caller, read above.
            respond(
                ServerAPI.failure(
                    GatewayError(.unauthenticated, "send the device token as Authorization: Bearer <jwt>")))
        }
        return true
    }

    /// Before the body: the stats take none, every other endpoint needs the caller's device token.
    func verdict(onHead head: HTTPRequestHead) -> HTTPHeadVerdict {
        guard head.path != Self.prefix + "stats", case .failure(let refusal) = api.deviceIdentity(head) else {
            return .readBody
        }
        return .refuse(refusal.response)
    }

    /// The caller's own demo session, created on first use (on the hub loop).
    private static func demoSession(
        of caller: ClientIdentity, hub: GatewayHub, completion: @escaping (Result<SessionData, GatewayError>) -> Void
    ) {
        hub.createSession(
            id: "demo-" + caller.userId, userId: caller.userId, title: "Demo agent run", completion: completion)
    }
}
