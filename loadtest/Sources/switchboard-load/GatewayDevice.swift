import JSON
import WebSocketCodec

/// A device on the gateway's `/v1/ws`: connects with its own token (and optional resume offset), parses every text
/// frame as JSON, hands events and replies to its handler, and sends commands with numbered ids.
///
/// Loop-confined (a `ConnectionSession`); `tag` and `slot` are the owner's bookkeeping (e.g. user index and which of
/// the user's devices). Frames that are not JSON objects are counted as `gateway_bad_frame` errors.
final class GatewayDevice: ConnectionSession {
    let userId: String
    let deviceId: String
    let clientType: String
    /// Owner's index of this device's user, and which device of the user it is.
    let tag: Int
    let slot: Int
    let requestPath: String?
    private unowned let driver: LoopDriver
    private weak var handler: GatewayDeviceHandler?
    private(set) var client: WebSocketClient?
    /// True between `welcome` and the end of the connection.
    private(set) var isReady = false
    /// `latestOffset` from `welcome`: the user's log position when this device went live.
    private(set) var welcomeOffset: Int64 = 0
    private var nextCommandId = 1
    private var scratch: [UInt8] = []

    init(driver: LoopDriver, handler: GatewayDeviceHandler, minter: JWTMinter, basePath: String, userId: String,
         deviceId: String, clientType: String, tag: Int, slot: Int, resumeOffset: Int64? = nil) {
        self.driver = driver
        self.handler = handler
        self.userId = userId
        self.deviceId = deviceId
        self.clientType = clientType
        self.tag = tag
        self.slot = slot
        requestPath = minter.requestPath(
            base: basePath, userId: userId, deviceId: deviceId, clientType: clientType, offset: resumeOffset)
    }

    /// Sends a command `{"id":"N","type":…,<fields>}`; `fields` is pre-encoded JSON members ("\"to\":\"bob\"").
    /// Returns the id, or nil when the device is not open.
    @discardableResult
    func send(_ type: String, _ fields: String = "") -> Int? {
        guard isReady, let client, client.state == .open else { return nil }
        let id = nextCommandId
        nextCommandId += 1
        var text = "{\"id\":\"\(id)\",\"type\":\"\(type)\""
        if !fields.isEmpty { text += "," + fields }
        text += "}"
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: text.utf8)
        scratch.withUnsafeBytes { client.send(opcode: .text, payload: $0, random: &driver.random) }
        driver.stats.messagesSent += 1
        driver.stats.bytesSent += scratch.count
        return id
    }

    /// The user's devices go to consecutive nodes (phone on one, desktop on the next), and consecutive users start on
    /// consecutive nodes: with `--node-url`, a user's devices and a message's two ends are on different nodes.
    var node: Int { tag + slot }

    /// Starts the closing handshake.
    func close() {
        client?.close()
    }

    // MARK: ConnectionSession

    func didOpen(_ client: WebSocketClient) {
        self.client = client
    }

    func didReceive(_ client: WebSocketClient, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        driver.stats.messagesReceived += 1
        driver.stats.bytesReceived += payload.count
        driver.counters.messagesReceived.add(1, ordering: .relaxed)
        guard opcode == .text, case .object(let frame)? = try? JSONValue.parse(Array(payload)),
              let type = frame["type"]?.stringValue else {
            driver.recordError("gateway_bad_frame")
            return
        }
        let data: [String: JSONValue]
        if case .object(let object)? = frame["data"] { data = object } else { data = [:] }
        switch type {
        case "reply":
            var result: [String: JSONValue] = [:]
            if case .object(let object)? = frame["result"] { result = object }
            var code: String?
            if case .object(let error)? = frame["error"] { code = error["code"]?.stringValue ?? "unknown" }
            // Ids are sent as decimal strings; a reply without one means the server could not read the command.
            guard let id = frame["id"]?.stringValue.flatMap({ Int($0) }) else {
                driver.recordError("command_unreadable_" + (code ?? "ok"))
                return
            }
            handler?.device(self, replied: GatewayReply(id: id, ok: frame["ok"] == .bool(true), result: result, errorCode: code))
        case "welcome":
            welcomeOffset = data["latestOffset"]?.int64Value ?? 0
            isReady = true
            handler?.deviceIsReady(self)
        default:
            handler?.device(self, received: GatewayEvent(type: type, offset: frame["offset"]?.int64Value, data: data))
        }
    }

    func stopSending() {}

    var outstanding: Int { 0 }

    func didEnd() {
        isReady = false
        client = nil
        handler?.deviceDidEnd(self)
    }
}

extension String {
    /// The string as a JSON string literal (RFC 8259 §7), quotes included — the project's JSON string escaper.
    var jsonQuoted: String { JSONString.quoted(self) }
}
