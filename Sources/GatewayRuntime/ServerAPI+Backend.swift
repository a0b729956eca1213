import FoundationEssentials
import Gateway
import GatewayProtocol
import HTTP1

/// Backend routes (API key checked by the caller).
extension ServerAPI {
    private struct UserBody: JSONFieldsDecodable {
        var userId: String; var displayName: String?
        init(fields f: JSONFields) throws(GatewayError) { userId = try f.id("userId"); displayName = try f.optionalString("displayName") }
    }
    private struct ContactBody: JSONFieldsDecodable {
        var userA: String; var userB: String
        init(fields f: JSONFields) throws(GatewayError) { userA = try f.id("userA"); userB = try f.id("userB") }
    }
    private struct SessionBody: JSONFieldsDecodable {
        var userId: String; var sessionId: String?; var title: String?
        init(fields f: JSONFields) throws(GatewayError) {
            userId = try f.id("userId"); sessionId = try f.optionalID("sessionId"); title = try f.optionalString("title")
        }
    }
    private struct SessionEventBody: JSONFieldsDecodable {
        var kind: String; var payload: JSONValue?
        init(fields f: JSONFields) throws(GatewayError) { kind = try f.string("kind"); payload = f.optionalJSON("payload") }
    }
    private struct ApprovalBody: JSONFieldsDecodable {
        var toolName: String; var summary: String; var details: JSONValue?; var timeoutSeconds: Double?; var idempotencyKey: String?
        init(fields f: JSONFields) throws(GatewayError) {
            toolName = try f.string("toolName"); summary = try f.string("summary"); details = f.optionalJSON("details")
            timeoutSeconds = try f.optionalDouble("timeoutSeconds"); idempotencyKey = try f.optionalString("idempotencyKey")
        }
    }
    private struct PublishBody: JSONFieldsDecodable {
        var name: String; var payload: JSONValue?; var idempotencyKey: String?
        init(fields f: JSONFields) throws(GatewayError) {
            name = try f.string("name"); payload = f.optionalJSON("payload"); idempotencyKey = try f.optionalString("idempotencyKey")
        }
    }
    private struct OffsetResult: Encodable { var offset: Int64 }
    private struct Done: Encodable { var ok = true }

    func backendRoute(_ route: [String], request: HTTPRequest, respond: @escaping Respond) -> Bool {
        let method = request.head.method
        let idempotencyHeader = request.head.headers["Idempotency-Key"]
        switch (method, route.count, route.first) {
        case ("POST", 1, "users"):
            guard let body = decode(UserBody.self, request, respond: respond) else { return true }
            guard Self.validID(body.userId) else { respond(Self.badID("userId")); return true }
            // 201 when this call created the user, 200 when it only updated one (the hub has read it from the store by now).
            onHub(users: [body.userId], respond: respond) { hub in
                let status = hub.user(body.userId) == nil ? 201 : 200
                hub.upsertUser(id: body.userId, displayName: body.displayName, completion: Self.reply(respond, status: status))
            }
        case ("GET", 2, "users"):
            let id = route[1]
            onHub(users: [id], respond: respond) { hub in respond(hub.user(id).map { Self.ok($0) } ?? Self.failure(GatewayError(.userNotFound, "no user \"\(id)\""))) }
        case ("GET", 3, "users") where route[2] == "approvals":
            let id = route[1]
            onHub { hub in
                let pending = hub.pendingApprovals(of: id)
                respond(Self.ok(PendingBody(approvals: pending, badge: pending.count)))
            }
        case ("POST", 3, "users") where route[2] == "events":
            guard let body = decode(PublishBody.self, request, respond: respond) else { return true }
            let id = route[1]
            onHub(users: [id], respond: respond) { hub in
                hub.publish(userId: id, name: body.name, payload: body.payload, idempotencyKey: idempotencyHeader ?? body.idempotencyKey) {
                    Self.reply(respond, status: 201)($0.map { OffsetResult(offset: $0) })
                }
            }
        case ("POST", 1, "contacts"), ("DELETE", 1, "contacts"):
            guard let body = decode(ContactBody.self, request, respond: respond) else { return true }
            let add = method == "POST"
            onHub(users: [body.userA, body.userB], respond: respond) { hub in
                let done: (Result<Void, GatewayError>) -> Void = { Self.reply(respond)($0.map { Done() }) }
                if add { hub.addContact(body.userA, body.userB, completion: done) } else { hub.removeContact(body.userA, body.userB, completion: done) }
            }
        case ("POST", 1, "sessions"):
            guard let body = decode(SessionBody.self, request, respond: respond) else { return true }
            guard Self.validID(body.userId), body.sessionId.map(Self.validID) ?? true else { respond(Self.badID("userId/sessionId")); return true }
            onHub(users: [body.userId], respond: respond) { $0.createSession(id: body.sessionId, userId: body.userId, title: body.title, completion: Self.reply(respond, status: 201)) }
        case ("GET", 2, "sessions"):
            let id = route[1]
            onHub { hub in
                hub.session(id) { result in
                    switch result {
                    case .success(let data?): respond(Self.ok(data))
                    case .success(nil): respond(Self.failure(GatewayError(.sessionNotFound, "no session \"\(id)\"")))
                    case .failure(let error): respond(Self.failure(error))
                    }
                }
            }
        case ("POST", 3, "sessions") where route[2] == "events":
            guard let body = decode(SessionEventBody.self, request, respond: respond) else { return true }
            let id = route[1]
            onHub { hub in
                hub.postSessionEvent(sessionId: id, kind: body.kind, payload: body.payload) {
                    Self.reply(respond, status: 201)($0.map { OffsetResult(offset: $0) })
                }
            }
        case ("POST", 3, "sessions") where route[2] == "end":
            let id = route[1]
            onHub { $0.endSession(sessionId: id, completion: Self.reply(respond)) }
        case ("POST", 3, "sessions") where route[2] == "approvals":
            guard let body = decode(ApprovalBody.self, request, respond: respond) else { return true }
            guard !body.toolName.isEmpty, !body.summary.isEmpty else {
                respond(Self.failure(GatewayError(.invalidField, "toolName and summary must not be empty")))
                return true
            }
            let id = route[1]
            let timeout: Int64?
            do { timeout = try ApprovalTimeout(hub.settings).milliseconds(seconds: body.timeoutSeconds) } catch {
                respond(Self.failure(error))
                return true
            }
            onHub { hub in
                hub.requestApproval(sessionId: id, toolName: body.toolName, summary: body.summary, details: body.details, timeoutMs: timeout,
                                    idempotencyKey: idempotencyHeader ?? body.idempotencyKey, completion: Self.reply(respond, status: 201))
            }
        case ("POST", 3, "devices") where route[2] == "push-tokens", ("POST", 5, "users") where route[2] == "devices" && route[4] == "push-tokens":
            guard let body = decode(PushRegisterCommand.self, request, respond: respond) else { return true }
            let (user, device) = route.count == 5 ? (route[1], route[3]) : (nil, route[1])
            Self.device(user: user, device: device, on: self, respond: respond) { hub, key in
                do {
                    try hub.setPushToken(key, body) { Self.reply(respond)($0.map { Done() }) }
                } catch let error as GatewayError {
                    respond(Self.failure(error))
                } catch {
                    respond(Self.failure(GatewayError(.internalError, "\(error)")))
                }
            }
        case ("DELETE", 3, "devices") where route[2] == "push-tokens", ("DELETE", 5, "users") where route[2] == "devices" && route[4] == "push-tokens":
            guard let body = decode(PushUnregisterCommand.self, request, respond: respond) else { return true }
            let (user, device) = route.count == 5 ? (route[1], route[3]) : (nil, route[1])
            Self.device(user: user, device: device, on: self, respond: respond) { hub, key in
                hub.removePushToken(key, kind: body.kind, sessionId: body.sessionId) { Self.reply(respond)($0.map { Done() }) }
            }
        case ("PUT", 3, "users") where route[2] == "notification-settings":
            guard let body = decode(NotificationSettingsCommand.self, request, respond: respond) else { return true }
            let id = route[1]
            onHub(users: [id], respond: respond) { hub in hub.updateNotificationSettings(userId: id, body, completion: Self.reply(respond)) }
        case ("GET", 2, "approvals"):
            let id = route[1]
            guard let waitMs = Self.waitMilliseconds(request.head.queryItem("wait")) else {
                respond(Self.failure(GatewayError(.invalidField, "wait must be a number of seconds (0 to 60; more waits 60)")))
                return true
            }
            onHub { hub in
                hub.waitForApproval(id, waitMs: waitMs) { result in
                    switch result {
                    case .success(let data?): respond(Self.ok(data))
                    case .success(nil): respond(Self.failure(GatewayError(.approvalNotFound, "no approval request \"\(id)\"")))
                    case .failure(let error): respond(Self.failure(error))
                    }
                }
            }
        default:
            if relationshipRoute(route, request: request, respond: respond) { return true }
            respond(.jsonError(status: 404, code: "not_found", message: "no API route \(method) \(request.head.path)"))
        }
        return true
    }

    /// The longest `GET /v1/approvals/{id}?wait=` long-poll: larger values wait this long.
    static let maxWaitMs: Int64 = 60_000

    /// `?wait=` (seconds) in milliseconds, 0 when absent; nil when it is not a number in JSON's grammar. Finite values
    /// are clamped to 0...60 s; `nan` (a backend passing JavaScript's NaN), `inf` and text are refused, since NaN
    /// passes any clamp and would then trap on conversion.
    static func waitMilliseconds(_ text: String?) -> Int64? {
        guard let text else { return 0 }
        guard let seconds = WholeNumber.decimal(text) else { return nil }
        return WholeNumber.rounded(min(max(seconds, 0), Double(maxWaitMs) / 1000), scale: 1000, in: 0...maxWaitMs)
    }

    private struct PendingBody: Encodable { var approvals: [ApprovalData]; var badge: Int }

    /// A device named by the backend. Device ids are unique only per user: `/v1/devices/{id}/…` works while one user
    /// has that id (read from the store); otherwise the caller must name the user (`/v1/users/{userId}/devices/{id}/…`).
    /// `body` runs on the hub thread with the device's user loaded.
    static func device(user: String?, device: String, on api: ServerAPI, respond: @escaping Respond,
                       _ body: @escaping @Sendable (GatewayHub, DeviceKey) -> Void) {
        let found: @Sendable (GatewayHub, String) -> Void = { hub, owner in
            hub.withUsers([owner], failed: { respond(failure($0)) }) { body(hub, DeviceKey(userId: owner, deviceId: device)) }
        }
        if let user { return api.onHub { found($0, user) } }
        api.onHub { hub in
            hub.deviceOwners(device) { result in
                switch result {
                case .failure(let error):
                    respond(failure(error))
                case .success(let owners) where owners.isEmpty:
                    respond(failure(GatewayError(.notFound, "no device \"\(device)\"")))
                case .success(let owners) where owners.count == 1:
                    found(hub, owners[0])
                case .success:
                    respond(.jsonError(status: 409, code: "device_id_ambiguous",
                                       message: "several users have a device \"\(device)\": use /v1/users/{userId}/devices/\(device)/push-tokens"))
                }
            }
        }
    }

    /// Ids chosen by backends follow the one id grammar (`Identifier`), like tokens and client commands.
    static func validID(_ id: String) -> Bool { Identifier.isValid(id) }

    static func badID(_ field: String) -> HTTPResponse {
        failure(GatewayError(.invalidID, "\(field) is not a valid id: ids are \(Identifier.rule)"))
    }
}
