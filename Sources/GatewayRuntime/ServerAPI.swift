import Auth
import FoundationEssentials
import Gateway
import GatewayProtocol
import HTTP1
import Server

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
        case .register:
            registerDevice(request, respond: respond)
        case .ownDisplayName:
            setOwnDisplayName(request, respond: respond)
        case .backend(let route):
            return backendRoute(route, request: request, respond: respond)
        }
        return true
    }

    /// What the head decides before the body is read (`Expect: 100-continue`): the same checks `handle` makes first.
    func verdict(onHead head: HTTPRequestHead) -> HTTPHeadVerdict {
        switch route(head) {
        case .notMine: .notMine
        case .refuse(let response): .refuse(response)
        case .register, .ownDisplayName, .backend: .readBody
        }
    }

    /// Where a request goes, decided from its head alone.
    private enum Route {
        case notMine
        case refuse(HTTPResponse)
        case register
        case ownDisplayName
        /// The path's segments after `/v1`, for a caller with a valid API key.
        case backend([String])
    }

    private func route(_ head: HTTPRequestHead) -> Route {
        guard head.path.hasPrefix("/v1/"), head.path != GatewayEndpoint.path else { return .notMine }
        // Routes match decoded segments; every segment after /v1 (route words and ids alike) follows the id grammar,
        // so a lookup never sees a malformed id.
        guard let parts = head.pathSegments() else {   // ["v1", ...]
            return .refuse(.jsonError(status: 400, code: "invalid_path", message: "the path has a malformed percent-escape (use %XX with two hex digits, UTF-8)"))
        }
        let segments = Array(parts.dropFirst())
        for segment in segments where !Identifier.isValid(segment) {
            return .refuse(Self.failure(GatewayError(.invalidID, "path segment \"\(segment)\" is not a valid id: ids are \(Identifier.rule)")))
        }

        // Standalone endpoints authenticate as devices, not backends.
        if segments == ["devices", "register"] {
            guard standalone else { return .notMine }
            guard head.method == "POST" else { return .refuse(Self.methodNotAllowed("POST")) }
            return .register
        }
        if segments == ["users", "me", "display-name"] {
            guard head.method == "PUT" else { return .refuse(Self.methodNotAllowed("PUT")) }
            return .ownDisplayName
        }

        guard authenticator.serverAPIEnabled else {
            return .refuse(.jsonError(status: 404, code: "not_found", message: "the server API is off: set auth.api_keys"))
        }
        guard let header = head.headers["Authorization"], let key = BearerToken.parse(authorization: header),
              authenticator.checkAPIKey(key) != nil else {
            return .refuse(.jsonError(status: 401, code: "unauthenticated", message: "send the API key as Authorization: Bearer <key>",
                                      extraHeaders: HTTPHeaders([("WWW-Authenticate", "Bearer")])))
        }
        return .backend(segments)
    }

    // MARK: Helpers

    static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        .jsonError(status: 405, code: "method_not_allowed", message: "use \(allowed)", extraHeaders: HTTPHeaders([("Allow", allowed)]))
    }

    static func ok(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: ServerFrames.encode(value))
    }

    static func failure(_ error: GatewayError) -> HTTPResponse {
        let status: Int
        switch error.code {
        case .notFound, .userNotFound, .sessionNotFound, .approvalNotFound, .requestNotFound, .groupNotFound, .inviteNotFound: status = 404
        case .requestAlreadySent, .alreadyFriends, .alreadyMember, .requestAlreadyResolved, .inviteUsed, .groupFull, .contactPaused, .userBlocked: status = 409
        case .inviteExpired, .inviteRevoked, .connectCodeExpired: status = 410
        case .notAMember: status = 403
        case .unauthenticated, .tokenInvalid: status = 401
        case .forbidden: status = 403
        case .approvalAlreadyResolved, .approvalExpired, .sessionEnded, .idempotencyKeyReused: status = 409
        case .rateLimited: status = 429
        case .storageFailed, .overloaded: status = 503
        case .internalError: status = 500
        case .messageTooLarge: status = 413
        default: status = 400   // including invalid_id
        }
        let retry = error.retryAfterMs.map { HTTPHeaders([("Retry-After", String(($0 + 999) / 1000))]) } ?? HTTPHeaders()
        return .jsonError(status: status, code: error.code.rawValue, message: error.message, extraHeaders: retry)
    }

    /// Reads a JSON body (an empty body is `{}`) through the same strict parse and field reader as client
    /// commands, or answers 400 naming the field.
    func decode<T: JSONFieldsDecodable>(_ type: T.Type, _ request: HTTPRequest, respond: Respond) -> T? {
        do throws(GatewayError) {
            let fields = request.body.isEmpty ? try JSONFields(.object([:])) : try JSONFields.parse(request.body, what: "body")
            return try T(fields: fields)
        } catch {
            respond(Self.failure(error))
            return nil
        }
    }

    /// Runs `body` on the hub loop.
    func onHub(_ body: @escaping @Sendable (GatewayHub) -> Void) {
        let hub = self.hub
        scheduler.execute { body(hub) }
    }

    /// Runs `body` on the hub loop once the users the call names are loaded (read from the store when not in memory),
    /// and then those `shown(hub)` lists (users its answer shows by name); a failed read answers 503 `storage_failed`.
    func onHub(users: [String], shown: (@Sendable (GatewayHub) -> [String])? = nil, respond: @escaping Respond,
               _ body: @escaping @Sendable (GatewayHub) -> Void) {
        let failed: @Sendable (GatewayError) -> Void = { respond(Self.failure($0)) }
        onHub { hub in
            hub.withUsers(users, failed: failed) {
                guard let shown else { return body(hub) }
                hub.withUsers(shown(hub), failed: failed) { body(hub) }
            }
        }
    }

    static func reply<T: Encodable>(_ respond: @escaping Respond, status: Int = 200) -> (Result<T, GatewayError>) -> Void {
        { result in
            switch result {
            case .success(let value): respond(ok(value, status: status))
            case .failure(let error): respond(failure(error))
            }
        }
    }

    // MARK: Standalone

    private struct RegisterBody: JSONFieldsDecodable {
        var deviceToken: String; var platform: String
        init(fields f: JSONFields) throws(GatewayError) { deviceToken = try f.string("deviceToken"); platform = try f.string("platform") }
    }
    private struct Registered: Encodable { var userId: String; var hexCode: String; var deviceId: String; var token: String }

    private func registerDevice(_ request: HTTPRequest, respond: @escaping Respond) {
        guard let body = decode(RegisterBody.self, request, respond: respond) else { return }
        // The secret is the identity: a weak one is a user anyone could register into.
        if let weak = DeviceSecretRule.check(body.deviceToken) { return respond(Self.failure(weak)) }
        // Only the digest leaves this function: the store keeps SHA-256 of the secret, never the secret.
        let digest = SecretDigest.sha256Hex(body.deviceToken)
        let authenticator = self.authenticator
        let source = request.head.sourceAddress.map(SourceAddress.group)
        onHub { hub in
            hub.registerDevice(deviceTokenDigest: digest, platform: body.platform, source: source) { result in
                switch result {
                case .success(let r):
                    let identity = ClientIdentity(userId: r.userId, deviceId: r.deviceId, clientType: r.clientType)
                    guard let token = try? authenticator.issueToken(for: identity) else {
                        return respond(Self.failure(GatewayError(.internalError, "could not sign a token")))
                    }
                    respond(Self.ok(Registered(userId: r.userId, hexCode: r.hexCode, deviceId: r.deviceId, token: token), status: r.created ? 201 : 200))
                case .failure(let error):
                    respond(Self.failure(error))
                }
            }
        }
    }

    private struct DisplayNameBody: JSONFieldsDecodable {
        var displayName: String
        init(fields f: JSONFields) throws(GatewayError) { displayName = try f.string("displayName") }
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
            return .failure(Refusal(.jsonError(status: 401, code: "unauthenticated", message: "send the device token as Authorization: Bearer <jwt>")))
        }
        switch authenticator.identify(token: token) {
        case .success(let found):
            return .success(found)
        case .failure(let error):
            return .failure(Refusal(.jsonError(status: 401, code: "token_invalid", message: "\(error.code): \(error.message)")))
        }
    }

    /// A response that refuses a request, as an `Error` for `Result`.
    struct Refusal: Error {
        let response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }

    private func setOwnDisplayName(_ request: HTTPRequest, respond: @escaping Respond) {
        guard let identity = deviceIdentity(request, respond: respond),
              let body = decode(DisplayNameBody.self, request, respond: respond) else { return }
        onHub(users: [identity.userId], respond: respond) { hub in hub.setDisplayName(userId: identity.userId, body.displayName, completion: Self.reply(respond)) }
    }
}
