import FoundationEssentials
import Gateway
import GatewayProtocol
import HTTP1
import ServerAPIRoutes

/// The executor of typed requests (route, ids and body already read by `APIRoutes`; the caller already checked):
/// each calls the hub and answers. Relationship routes are in ServerAPI+Relationships.swift.
extension ServerAPI {
    private struct OffsetResult: Encodable { var offset: Int64 }
    private struct Done: Encodable { var ok = true }
    private struct PendingBody: Encodable { var approvals: [ApprovalData]; var badge: Int }

    /// Runs one request. `device` is the caller's device for a device route (nil for a backend's).
    func execute(_ request: APIRequest, device: ClientIdentity?, head: HTTPRequestHead, respond: @escaping Respond) {
        switch request {
        case .registerDevice(let body):
            registerDevice(body, head: head, respond: respond)
        case .setOwnDisplayName(let body):
            guard let device else {
                return respond(
                    Self.failure(GatewayError(.unauthenticated, "send the device token as Authorization: Bearer <jwt>"))
                )
            }
            setOwnDisplayName(body, identity: device, respond: respond)
        case .upsertUser(let body):
            // 201 when this call created the user, 200 when it only updated one (the hub has read it from the store by now).
            onHub(users: [body.userId], respond: respond) { hub in
                let status = hub.user(body.userId) == nil ? 201 : 200
                hub.upsertUser(
                    id: body.userId, displayName: body.displayName, completion: Self.reply(respond, status: status))
            }
        case .getUser(let id):
            onHub(users: [id], respond: respond) { hub in
                respond(
                    hub.user(id).map { Self.ok($0) } ?? Self.failure(GatewayError(.userNotFound, "no user \"\(id)\"")))
            }
        case .pendingApprovals(let id):
            onHub { hub in
                let pending = hub.pendingApprovals(of: id)
                respond(Self.ok(PendingBody(approvals: pending, badge: pending.count)))
            }
        case .publishUserEvent(let id, let body, let idempotencyKey):
            onHub(users: [id], respond: respond) { hub in
                hub.publish(
                    userId: id, name: body.name, payload: body.payload, notification: body.notification,
                    idempotencyKey: idempotencyKey
                ) {
                    Self.reply(respond, status: 201)($0.map { OffsetResult(offset: $0) })
                }
            }
        case .addContact(let body), .removeContact(let body):
            let add = if case .addContact = request { true } else { false }
            onHub(users: [body.userA, body.userB], respond: respond) { hub in
                let done: (Result<Void, GatewayError>) -> Void = { Self.reply(respond)($0.map { Done() }) }
                if add {
                    hub.addContact(body.userA, body.userB, completion: done)
                } else {
                    hub.removeContact(body.userA, body.userB, completion: done)
                }
            }
        case .createSession(let body):
            onHub(users: [body.userId], respond: respond) {
                $0.createSession(
                    id: body.sessionId, userId: body.userId, title: body.title,
                    completion: Self.reply(respond, status: 201))
            }
        case .getSession(let id):
            onHub { hub in
                hub.session(id) { result in
                    switch result {
                    case .success(let data?): respond(Self.ok(data))
                    case .success(nil): respond(Self.failure(GatewayError(.sessionNotFound, "no session \"\(id)\"")))
                    case .failure(let error): respond(Self.failure(error))
                    }
                }
            }
        case .postSessionEvent(let id, let body):
            onHub { hub in
                hub.postSessionEvent(
                    sessionId: id, kind: body.kind, payload: body.payload, notification: body.notification
                ) {
                    Self.reply(respond, status: 201)($0.map { OffsetResult(offset: $0) })
                }
            }
        case .endSession(let id):
            onHub { $0.endSession(sessionId: id, completion: Self.reply(respond)) }
        case .requestApproval(let id, let body, let idempotencyKey):
            let timeout: Int64?
            do { timeout = try ApprovalTimeout(hub.settings).milliseconds(seconds: body.timeoutSeconds) } catch {
                return respond(Self.failure(error))
            }
            onHub { hub in
                hub.requestApproval(
                    sessionId: id, toolName: body.toolName, summary: body.summary, details: body.details,
                    timeoutMs: timeout,
                    idempotencyKey: idempotencyKey, completion: Self.reply(respond, status: 201))
            }
        case .registerPushToken(let device, let body):
            Self.device(device, on: self, respond: respond) { hub, key in
                do {
                    try hub.setPushToken(key, body) { Self.reply(respond)($0.map { Done() }) }
                } catch let error as GatewayError {
                    respond(Self.failure(error))
                } catch {
                    respond(Self.failure(GatewayError(.internalError, "\(error)")))
                }
            }
        case .unregisterPushToken(let device, let body):
            Self.device(device, on: self, respond: respond) { hub, key in
                hub.removePushToken(key, kind: body.kind, sessionId: body.sessionId) {
                    Self.reply(respond)($0.map { Done() })
                }
            }
        case .setNotificationSettings(let id, let body):
            onHub(users: [id], respond: respond) { hub in
                hub.updateNotificationSettings(userId: id, body, completion: Self.reply(respond))
            }
        case .getApproval(let id, let waitMs):
            onHub { hub in
                hub.waitForApproval(id, waitMs: waitMs) { result in
                    switch result {
                    case .success(let data?): respond(Self.ok(data))
                    case .success(nil):
                        respond(Self.failure(GatewayError(.approvalNotFound, "no approval request \"\(id)\"")))
                    case .failure(let error): respond(Self.failure(error))
                    }
                }
            }
        default:
            if executeLifecycle(request, device: device, respond: respond) { return }
            executeRelationship(request, respond: respond)
        }
    }

    /// A device named by the backend. Device ids are unique only per user: `/v1/devices/{id}/…` works while one user
    /// has that id (read from the store); otherwise the caller must name the user (`/v1/users/{userId}/devices/{id}/…`).
    /// `body` runs on the hub thread with the device's user loaded.
    static func device(
        _ ref: APIDeviceRef, on api: ServerAPI, respond: @escaping Respond,
        _ body: @escaping @Sendable (GatewayHub, DeviceKey) -> Void
    ) {
        let device = ref.deviceId
        let found: @Sendable (GatewayHub, String) -> Void = { hub, owner in
            hub.withUsers([owner], failed: { respond(failure($0)) }) {
                body(hub, DeviceKey(userId: owner, deviceId: device))
            }
        }
        if let user = ref.userId { return api.onHub { found($0, user) } }
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
                    respond(
                        .jsonError(
                            status: 409, code: "device_id_ambiguous",
                            message:
                                "several users have a device \"\(device)\": use /v1/users/{userId}/devices/\(device)/push-tokens"
                        ))
                }
            }
        }
    }
}
