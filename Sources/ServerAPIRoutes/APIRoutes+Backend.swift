import GatewayProtocol

/// The backend's routes of users, contacts, sessions, approvals and push (docs/PROTOCOL.md "Server API").
extension APIRoutes {
    typealias Build = @Sendable (APIRequestInput) throws(GatewayError) -> APIRequest

    /// The route `method` and `route` (the segments after `/v1`) name, nil when none does.
    static func backendRoute(_ method: String, _ route: [String]) -> Build? {
        switch (method, route.count, route.first) {
        case ("POST", 1, "users"):
            return { input throws(GatewayError) in .upsertUser(try input.body()) }
        case ("GET", 2, "users"):
            let id = route[1]
            return { _ in .getUser(userId: id) }
        case ("GET", 3, "users") where route[2] == "approvals":
            let id = route[1]
            return { _ in .pendingApprovals(userId: id) }
        case ("POST", 3, "users") where route[2] == "events":
            let id = route[1]
            return { input throws(GatewayError) in
                let body: PublishBody = try input.body()
                return .publishUserEvent(
                    userId: id, body, idempotencyKey: input.idempotencyHeader ?? body.idempotencyKey)
            }
        case ("DELETE", 2, "users"):
            let id = route[1]
            return { _ in .deleteUser(userId: id) }
        case ("DELETE", 4, "users") where route[2] == "devices":
            let device = APIDeviceRef(userId: route[1], deviceId: route[3])
            return { _ in .revokeDevice(device) }
        case ("POST", 1, "contacts"):
            return { input throws(GatewayError) in .addContact(try input.body()) }
        case ("DELETE", 1, "contacts"):
            return { input throws(GatewayError) in .removeContact(try input.body()) }
        case ("POST", 1, "sessions"):
            return { input throws(GatewayError) in .createSession(try input.body()) }
        case ("GET", 2, "sessions"):
            let id = route[1]
            return { _ in .getSession(sessionId: id) }
        case ("POST", 3, "sessions") where route[2] == "events":
            let id = route[1]
            return { input throws(GatewayError) in .postSessionEvent(sessionId: id, try input.body()) }
        case ("POST", 3, "sessions") where route[2] == "end":
            let id = route[1]
            return { _ in .endSession(sessionId: id) }
        case ("POST", 3, "sessions") where route[2] == "approvals":
            let id = route[1]
            return { input throws(GatewayError) in
                let body: ApprovalBody = try input.body()
                return .requestApproval(
                    sessionId: id, body, idempotencyKey: input.idempotencyHeader ?? body.idempotencyKey)
            }
        case ("POST", _, _), ("DELETE", _, _):
            guard let device = pushTokenDevice(route) else { return nil }
            if method == "POST" {
                return { input throws(GatewayError) in .registerPushToken(device, try input.body()) }
            }
            return { input throws(GatewayError) in .unregisterPushToken(device, try input.body()) }
        case ("PUT", 3, "users") where route[2] == "notification-settings":
            let id = route[1]
            return { input throws(GatewayError) in .setNotificationSettings(userId: id, try input.body()) }
        case ("GET", 2, "approvals"):
            let id = route[1]
            return { input throws(GatewayError) in
                guard let waitMs = waitMilliseconds(input.query("wait")) else {
                    throw GatewayError(.invalidField, "wait must be a number of seconds (0 to 60; more waits 60)")
                }
                return .getApproval(approvalId: id, waitMs: waitMs)
            }
        default:
            return nil
        }
    }

    /// `devices/{id}/push-tokens` or `users/{userId}/devices/{id}/push-tokens`.
    private static func pushTokenDevice(_ route: [String]) -> APIDeviceRef? {
        if route.count == 3, route[0] == "devices", route[2] == "push-tokens" {
            return APIDeviceRef(userId: nil, deviceId: route[1])
        }
        if route.count == 5, route[0] == "users", route[2] == "devices", route[4] == "push-tokens" {
            return APIDeviceRef(userId: route[1], deviceId: route[3])
        }
        return nil
    }
}
