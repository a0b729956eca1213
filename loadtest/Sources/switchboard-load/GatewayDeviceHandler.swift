import JSON

/// One event from the gateway (PROTOCOL.md, "Events"): its type, offset when durable, and data.
struct GatewayEvent {
    var type: String
    var offset: Int64?
    var data: [String: JSONValue]
}

/// The reply to one command: `ok` with a result, or an error code.
struct GatewayReply {
    var id: Int
    var ok: Bool
    var result: [String: JSONValue]
    var errorCode: String?
}

/// What a `GatewayDevice` reports to the scenario logic that owns it. Every call happens on the device's loop.
protocol GatewayDeviceHandler: AnyObject {
    /// `welcome` arrived: the device is authenticated and live.
    func deviceIsReady(_ device: GatewayDevice)
    /// An event other than `welcome`.
    func device(_ device: GatewayDevice, received event: GatewayEvent)
    /// A command's reply.
    func device(_ device: GatewayDevice, replied reply: GatewayReply)
    /// The connection ended (orderly or not).
    func deviceDidEnd(_ device: GatewayDevice)
}
