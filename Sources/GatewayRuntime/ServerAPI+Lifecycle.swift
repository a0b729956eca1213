import Gateway
import GatewayProtocol
import ServerAPIRoutes

/// Deleting a user and revoking a device, for a backend (any user, API key) or a device (its own user only):
/// docs/PROTOCOL.md, "Account and device lifecycle".
extension ServerAPI {
    private struct Done: Encodable { var ok = true }

    /// Runs a lifecycle request; false when `request` is none. `device`: the caller of a device route.
    func executeLifecycle(_ request: APIRequest, device: ClientIdentity?, respond: @escaping Respond) -> Bool {
        let done: @Sendable (Result<Void, GatewayError>) -> Void = { Self.reply(respond)($0.map { Done() }) }
        switch request {
        case .deleteUser(let userId):
            onHub { $0.deleteUser(userId, completion: done) }
        case .revokeDevice(let ref):
            guard let userId = ref.userId else { return false }
            onHub { $0.revokeDevice(userId: userId, deviceId: ref.deviceId, completion: done) }
        case .deleteOwnUser:
            ownDevice(device, respond: respond) { hub, me in hub.deleteUser(me.userId, completion: done) }
        case .revokeOwnDevice(let deviceId):
            // A device names devices of its own user only: another user's id is simply not one of them (404).
            ownDevice(device, respond: respond) { hub, me in
                hub.revokeDevice(userId: me.userId, deviceId: deviceId, completion: done)
            }
        default:
            return false
        }
        return true
    }

    /// Runs `body` on the hub with the caller's user loaded, once its token is known not to be revoked (401
    /// `token_revoked` otherwise: the signature alone does not say that the device still exists).
    func ownDevice(
        _ device: ClientIdentity?, respond: @escaping Respond,
        _ body: @escaping @Sendable (GatewayHub, ClientIdentity) -> Void
    ) {
        guard let device else {
            return respond(
                Self.failure(GatewayError(.unauthenticated, "send the device token as Authorization: Bearer <jwt>")))
        }
        onHub(users: [device.userId], respond: respond) { hub in
            if let revoked = hub.revocation(
                refusing: device.userId, deviceId: device.deviceId, issuedAt: device.issuedAt)
            {
                return respond(
                    Self.failure(
                        GatewayError(
                            .tokenRevoked,
                            "this token's \(revoked.deviceId == nil ? "user was deleted" : "device was revoked")")))
            }
            body(hub, device)
        }
    }
}
