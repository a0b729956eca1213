import Auth
import FoundationEssentials
import Gateway
import GatewayProtocol
import HTTP1
import Server
import ServerAPIRoutes

/// The HTTP JSON API under `/v1/`: the server API for app backends (API key) and the standalone endpoints for
/// devices. Requests are parsed on the connection's loop and run on the hub loop; the response goes back through
/// `respond`. Documented with curl examples in docs/PROTOCOL.md.
final class ServerAPI: HTTPApplication, Sendable {
    let hub: GatewayHub
    let scheduler: HubScheduler
    let authenticator: GatewayAuthenticator
    let standalone: Bool

    init(hub: GatewayHub, scheduler: HubScheduler, authenticator: GatewayAuthenticator, standalone: Bool) {
        self.hub = hub
        self.scheduler = scheduler
        self.authenticator = authenticator
        self.standalone = standalone
    }

    typealias Respond = @Sendable (HTTPResponse) -> Void

    func handle(_ request: HTTPRequest, respond: @escaping Respond) -> Bool {
        switch route(request.head) {
        case .notMine:
            return false
        case .refuse(let response):
            respond(response)
        case .accept(let route, let device):
            switch route.request(request) {
            case .failure(let refusal): respond(refusal.response)
            case .success(let typed): execute(typed, device: device, head: request.head, respond: respond)
            }
        }
        return true
    }

    /// What the head decides before the body is read (`Expect: 100-continue`): the same checks `handle` makes first.
    func verdict(onHead head: HTTPRequestHead) -> HTTPHeadVerdict {
        switch route(head) {
        case .notMine: .notMine
        case .refuse(let response): .refuse(response)
        case .accept: .readBody
        }
    }

    /// Where a request goes, decided from its head alone: the route table's match (`APIRoutes`), then the caller.
    private enum HeadDecision {
        case notMine
        case refuse(HTTPResponse)
        /// The route, and the device the caller's token names when the route is a device's.
        case accept(APIRoute, ClientIdentity?)
    }

    private func route(_ head: HTTPRequestHead) -> HeadDecision {
        guard head.path != GatewayEndpoint.path else { return .notMine }
        switch APIRoutes.match(head, standalone: standalone) {
        case .notMine: return .notMine
        case .refused(let refusal): return .refuse(refusal.response)
        // Standalone endpoints authenticate as devices (when at all), not backends.
        case .route(let route) where route.caller == .anyone: return .accept(route, nil)
        case .route(let route) where route.caller == .device:
            switch deviceIdentity(head) {
            case .success(let identity): return .accept(route, identity)
            case .failure(let refusal): return .refuse(refusal.response)
            }
        case .route(let route): return backendRefusal(head).map(HeadDecision.refuse) ?? .accept(route, nil)
        // A missing route is named only to a backend: anyone else learns nothing about the table.
        case .noRoute(let refusal): return .refuse(backendRefusal(head) ?? refusal.response)
        }
    }

    /// Why a head is no backend call (the server API off, no valid API key), nil when it is one.
    private func backendRefusal(_ head: HTTPRequestHead) -> HTTPResponse? {
        guard authenticator.serverAPIEnabled else {
            return .jsonError(status: 404, code: "not_found", message: "the server API is off: set auth.api_keys")
        }
        guard let header = head.headers["Authorization"], let key = BearerToken.parse(authorization: header),
            authenticator.checkAPIKey(key) != nil
        else {
            return .jsonError(
                status: 401, code: "unauthenticated", message: "send the API key as Authorization: Bearer <key>",
                extraHeaders: HTTPHeaders([("WWW-Authenticate", "Bearer")]))
        }
        return nil
    }

    // MARK: Helpers

    static func ok(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: ServerFrames.encode(value))
    }

    /// A gateway error as its HTTP refusal (status by code, `Retry-After` from its hint: `APIRefusal`).
    static func failure(_ error: GatewayError) -> HTTPResponse { APIRefusal(error).response }

    /// Runs `body` on the hub loop.
    func onHub(_ body: @escaping @Sendable (GatewayHub) -> Void) {
        let hub = self.hub
        scheduler.execute { body(hub) }
    }

    /// Runs `body` on the hub loop once the users the call names are loaded (read from the store when not in memory),
    /// and then those `shown(hub)` lists (users its answer shows by name); a failed read answers 503 `storage_failed`.
    func onHub(
        users: [String], shown: (@Sendable (GatewayHub) -> [String])? = nil, respond: @escaping Respond,
        _ body: @escaping @Sendable (GatewayHub) -> Void
    ) {
        let failed: @Sendable (GatewayError) -> Void = { respond(Self.failure($0)) }
        onHub { hub in
            hub.withUsers(users, failed: failed) {
                guard let shown else { return body(hub) }
                hub.withUsers(shown(hub), failed: failed) { body(hub) }
            }
        }
    }

    static func reply<T: Encodable>(_ respond: @escaping Respond, status: Int = 200) -> (Result<T, GatewayError>) ->
        Void
    {
        { result in
            switch result {
            case .success(let value): respond(ok(value, status: status))
            case .failure(let error): respond(failure(error))
            }
        }
    }

    // MARK: Standalone

    private struct Registered: Encodable {
        var userId: String; var hexCode: String; var deviceId: String; var token: String
    }

    func registerDevice(_ body: RegisterBody, head: HTTPRequestHead, respond: @escaping Respond) {
        // The secret is the identity: a weak one is a user anyone could register into.
        if let weak = DeviceSecretRule.check(body.deviceToken) { return respond(Self.failure(weak)) }
        // Only the digest leaves this function: the store keeps SHA-256 of the secret, never the secret.
        let digest = SecretDigest.sha256Hex(body.deviceToken)
        let authenticator = self.authenticator
        let source = head.sourceAddress.map(SourceAddress.group)
        onHub { hub in
            hub.registerDevice(deviceTokenDigest: digest, platform: body.platform, source: source) { result in
                switch result {
                case .success(let r):
                    let identity = ClientIdentity(userId: r.userId, deviceId: r.deviceId, clientType: r.clientType)
                    guard let token = try? authenticator.issueToken(for: identity) else {
                        return respond(Self.failure(GatewayError(.internalError, "could not sign a token")))
                    }
                    respond(
                        Self.ok(
                            Registered(userId: r.userId, hexCode: r.hexCode, deviceId: r.deviceId, token: token),
                            status: r.created ? 201 : 200))
                case .failure(let error):
                    respond(Self.failure(error))
                }
            }
        }
    }

    /// The device behind `Authorization: Bearer <client jwt>`, or nil after answering 401.
    func deviceIdentity(_ request: HTTPRequest, respond: Respond) -> ClientIdentity? {
        switch deviceIdentity(request.head) {
        case .success(let found):
            return found
        case .failure(let refusal):
            respond(refusal.response)
            return nil
        }
    }

    /// The device the head's bearer token names, or the 401 that refuses it.
    func deviceIdentity(_ head: HTTPRequestHead) -> Result<ClientIdentity, Refusal> {
        guard let header = head.headers["Authorization"], let token = BearerToken.parse(authorization: header) else {
            return .failure(
                Refusal(
                    .jsonError(
                        status: 401, code: "unauthenticated",
                        message: "send the device token as Authorization: Bearer <jwt>")))
        }
        switch authenticator.identify(token: token) {
        case .success(let found):
            return .success(found)
        case .failure(let error):
            return .failure(
                Refusal(.jsonError(status: 401, code: "token_invalid", message: "\(error.code): \(error.message)")))
        }
    }

    /// A response that refuses a request, as an `Error` for `Result`.
    struct Refusal: Error {
        let response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }

    func setOwnDisplayName(_ body: DisplayNameBody, identity: ClientIdentity, respond: @escaping Respond) {
        ownDevice(identity, respond: respond) { hub, me in
            hub.setDisplayName(userId: me.userId, body.displayName, completion: Self.reply(respond))
        }
    }
}
