/// The layout the approvals and handoff workloads share: connection `2u` is user `u`'s phone (ios), `2u + 1` its
/// desktop, and each user has one session `<user>-s` created by the backend before the devices connect.
enum PhoneAndDesktopUsers {
    static func userId(_ prefix: String, _ user: Int) -> String { "\(prefix)-u\(user)" }

    static func sessionId(_ prefix: String, _ user: Int) -> String { userId(prefix, user) + "-s" }

    /// Batch 0: a session per user (which also creates the user).
    static func setup(prefix: String, connections: Int) -> [[(method: String, path: String, body: String?)]] {
        [(0..<connections / 2).map { user in
            let id = userId(prefix, user)
            return ("POST", "/v1/sessions", "{\"userId\":\(id.jsonQuoted),\"sessionId\":\(sessionId(prefix, user).jsonQuoted),\"title\":\"load\"}")
        }]
    }

    /// The device for connection `index`, recorded in `devices[user][slot]`.
    static func makeDevice(index: Int, context: GatewayContext, handler: GatewayDeviceHandler,
                           devices: inout [[GatewayDevice?]]) -> GatewayDevice {
        let user = index / 2, slot = index % 2
        let id = userId(context.prefix, user)
        let device = context.device(
            handler: handler, userId: id, deviceId: id + (slot == 0 ? "-phone" : "-desk"),
            clientType: slot == 0 ? "ios" : "desktop", tag: user, slot: slot)
        devices[user][slot] = device
        return device
    }
}
