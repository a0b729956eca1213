/// `messages`: pairs of users made contacts through the API exchange `send_message`. In online pairs both users are
/// connected and write to each other; in offline pairs (`offlineFraction` of the pairs) the recipient never connects
/// during the run, so its messages go to its log (and the push outbox). Measures sender→recipient latency
/// (`message_delivery`) and verifies order and completeness per direction; the offline recipients connect after the
/// traffic with `?offset=0` and must get every message on resume, in order. A send refused with `overloaded` is
/// counted (`messages_refused_overloaded`), not retried, and not expected at the recipient. Loop-confined.
final class MessagesWorkload: GatewayWorkload, GatewayDeviceHandler {
    struct Options: Sendable {
        /// Messages sent per second, in total.
        var messageRate: Double
        /// Fraction of pairs whose recipient stays offline.
        var offlineFraction: Double
    }

    /// The pairs behind `connections`: offline pairs use one connection (the sender), online pairs two.
    struct Layout: Equatable {
        var offlinePairs: Int
        var onlinePairs: Int

        init(connections: Int, offlineFraction: Double) {
            guard offlineFraction > 0 else {
                offlinePairs = connections % 2
                onlinePairs = connections / 2
                return
            }
            // 2·online + offline = connections and offline / (online + offline) ≈ fraction.
            var offline = Int((Double(connections) * offlineFraction / (2 - offlineFraction)).rounded())
            offline = max(1, min(connections, offline))
            if (connections - offline) % 2 != 0 { offline += offline < connections ? 1 : -1 }
            offlinePairs = offline
            onlinePairs = (connections - offline) / 2
        }
    }

    /// One direction of a pair (sender user → recipient user) and its bookkeeping.
    private struct Direction {
        var sender: Int  // device index (planned connection) of the sender
        var recipient: Int?  // device index of the recipient, nil when offline
        var recipientUser: String
        var sent = 0
        var failed: Set<Int64> = []
        /// Sent and not answered yet.
        var unanswered: Set<Int64> = []
        /// Skipped by a later delivery before their reply came: lost only if the reply turns out ok (a refusal
        /// travels on the sender's socket and may be read after the recipient's next message).
        var skippedBeforeReply: Set<Int64> = []
        var replies = 0
        var verifier = OrderedDeliveryVerifier(first: 0)
        var received: Int { verifier.received }
        /// Gaps already reported as lost while receiving (not counted again at the end).
        var skipped = 0
    }

    private let context: GatewayContext
    private let options: Options
    private let layout: Layout
    private var devices: [GatewayDevice?]
    private var directions: [Direction] = []
    /// Direction index by (recipient device index, sender user id).
    private var incoming: [Int: [String: Int]] = [:]
    private var pending: [Int: (direction: Int, seq: Int)] = [:]
    private var verifiers: [Int: ResumeCheck] = [:]
    private var verifying = false
    private var sending = false
    private var pacer = Pacer(perSecond: 1)
    /// Sending starts once every device has its welcome, so no message reaches a device before it is live.
    private var gate: WelcomeGate
    /// The hold is over: a welcome that comes later releases nothing.
    private var holdEnded = false

    /// An offline recipient connected with `?offset=0` after the traffic.
    private struct ResumeCheck {
        var direction: Int
        var device: GatewayDevice
        var lastReplayed: Int64?
        var done = false
    }

    init(context: GatewayContext, connections: Int, options: Options) {
        self.context = context
        self.options = options
        layout = Layout(connections: connections, offlineFraction: options.offlineFraction)
        devices = Array(repeating: nil, count: connections)
        gate = WelcomeGate(devices: connections)
        for pair in 0..<layout.offlinePairs {
            directions.append(
                Direction(sender: pair, recipient: nil, recipientUser: Self.userId(context.prefix, pair, 1)))
        }
        for pair in 0..<layout.onlinePairs {
            let a = layout.offlinePairs + 2 * pair
            let p = layout.offlinePairs + pair
            directions.append(Direction(sender: a, recipient: a + 1, recipientUser: Self.userId(context.prefix, p, 1)))
            directions.append(Direction(sender: a + 1, recipient: a, recipientUser: Self.userId(context.prefix, p, 0)))
        }
        for (index, direction) in directions.enumerated() {
            if let recipient = direction.recipient {
                let senderUser = Self.userId(context.prefix, pairOf(direction.sender), sideOf(direction.sender))
                incoming[recipient, default: [:]][senderUser] = index
            }
        }
    }

    static func userId(_ prefix: String, _ pair: Int, _ side: Int) -> String {
        "\(prefix)-p\(pair)\(side == 0 ? "a" : "b")"
    }

    private func pairOf(_ device: Int) -> Int {
        device < layout.offlinePairs ? device : layout.offlinePairs + (device - layout.offlinePairs) / 2
    }

    private func sideOf(_ device: Int) -> Int {
        device < layout.offlinePairs ? 0 : (device - layout.offlinePairs) % 2
    }

    /// Batch 0: both users of every pair; batch 1: the contact between them.
    static func setup(prefix: String, connections: Int, options: Options) -> [[(
        method: String, path: String, body: String?
    )]] {
        let layout = Layout(connections: connections, offlineFraction: options.offlineFraction)
        let pairs = layout.offlinePairs + layout.onlinePairs
        var users: [(method: String, path: String, body: String?)] = []
        var contacts: [(method: String, path: String, body: String?)] = []
        for pair in 0..<pairs {
            let a = userId(prefix, pair, 0), b = userId(prefix, pair, 1)
            users.append(("POST", "/v1/users", "{\"userId\":\(a.jsonQuoted)}"))
            users.append(("POST", "/v1/users", "{\"userId\":\(b.jsonQuoted)}"))
            contacts.append(("POST", "/v1/contacts", "{\"userA\":\(a.jsonQuoted),\"userB\":\(b.jsonQuoted)}"))
        }
        return [users, contacts]
    }

    func makeDevice(index: Int) -> GatewayDevice {
        let user = Self.userId(context.prefix, pairOf(index), sideOf(index))
        let device = context.device(
            handler: self, userId: user, deviceId: user + "-phone", clientType: "ios", tag: index, slot: 0)
        devices[index] = device
        return device
    }

    func startTraffic() {
        if gate.requestTraffic() { beginSending() }
    }

    private func beginSending() {
        guard !directions.isEmpty, !holdEnded else { return }
        sending = true
        pacer = Pacer(perSecond: options.messageRate)
        tick()
    }

    private func tick() {
        guard sending else { return }
        for _ in 0..<pacer.take() { send(Int(context.driver.random.next() % UInt64(directions.count))) }
        context.loop.schedule(afterMilliseconds: 2) { [self] in tick() }
    }

    private func send(_ index: Int) {
        let seq = directions[index].sent
        guard let device = devices[directions[index].sender],
            let id = device.send(
                "send_message",
                """
                "to":\(directions[index].recipientUser.jsonQuoted),"text":"\(index) \(seq) \(MonotonicClock.nanoseconds())",\
                "clientMessageId":"\(index)-\(seq)"
                """)
        else {
            return context.driver.recordError("message_not_sent")
        }
        directions[index].sent += 1
        directions[index].unanswered.insert(Int64(seq))
        pending[device.tag << 32 | id] = (index, seq)
    }

    func deviceIsReady(_ device: GatewayDevice) {
        if gate.resolved(device.tag) { beginSending() }
    }

    func device(_ device: GatewayDevice, received event: GatewayEvent) {
        if event.type == "resume", verifiers[device.tag] != nil {
            verifiers[device.tag]!.lastReplayed = event.data.int("lastReplayed") ?? 0
            return checkResumeDone(device.tag, offset: event.offset ?? -1)
        }
        guard event.type == "message", let from = event.data.string("from"), from != device.userId else {
            if verifiers[device.tag] != nil { checkResumeDone(device.tag, offset: event.offset ?? -1) }
            return
        }
        let directionIndex = verifiers[device.tag]?.direction ?? incoming[device.tag]?[from]
        guard let directionIndex, let text = event.data.string("text") else {
            return context.driver.recordError("message_unexpected")
        }
        let parts = text.split(separator: " ")
        guard parts.count == 3, Int(parts[0]) == directionIndex, let seq = Int(parts[1]), let t0 = UInt64(parts[2])
        else {
            return context.driver.recordError("message_corrupted")
        }
        var direction = directions[directionIndex]
        let (failed, unanswered) = (direction.failed, direction.unanswered)
        var waiting: [Int64] = []
        let outcome = direction.verifier.receive(Int64(seq)) { gap in
            if unanswered.contains(gap) { waiting.append(gap); return true }
            return failed.contains(gap)
        }
        direction.skippedBeforeReply.formUnion(waiting)
        switch outcome {
        case .duplicateOrReordered:
            context.driver.recordError("message_duplicated_or_reordered")
        case .inOrder(let skipped):
            if skipped > 0 { context.driver.recordError("message_lost_or_reordered", count: skipped) }
            direction.skipped += skipped
            if verifiers[device.tag] == nil {
                context.driver.stats.record("message_delivery", microseconds: MonotonicClock.microseconds(since: t0))
                context.driver.stats.counts["messages_delivered", default: 0] += 1
            } else {
                context.driver.stats.counts["messages_resumed", default: 0] += 1
            }
        }
        directions[directionIndex] = direction
        if verifiers[device.tag] != nil { checkResumeDone(device.tag, offset: event.offset ?? -1) }
    }

    func device(_ device: GatewayDevice, replied reply: GatewayReply) {
        guard let (index, seq) = pending.removeValue(forKey: device.tag << 32 | reply.id) else { return }
        directions[index].replies += 1
        directions[index].unanswered.remove(Int64(seq))
        if directions[index].skippedBeforeReply.remove(Int64(seq)) != nil && reply.ok {
            // Stored, yet a later message of this direction arrived first and this one never will.
            context.driver.recordError("message_lost_or_reordered")
            directions[index].skipped += 1
        }
        if !reply.ok {
            directions[index].failed.insert(Int64(seq))
            if reply.errorCode == "overloaded" {
                // The server refused it up front (retryable, nothing stored): a refusal, not a loss. Not retried, so
                // the offered rate stays what `--message-rate` says.
                context.driver.stats.counts["messages_refused_overloaded", default: 0] += 1
            } else {
                context.driver.recordError("send_message_" + (reply.errorCode ?? "failed"))
            }
        }
        if !sending { startResumeChecks() }
    }

    func deviceDidEnd(_ device: GatewayDevice) {
        if gate.resolved(device.tag) { beginSending() }
        if verifiers[device.tag]?.done == false { verifiers[device.tag]!.done = true }
    }

    func stopSending() {
        if !gate.isOpen, gate.waitingCount > 0 {
            // The hold ended with devices still waiting: nothing was sent, and the report says why.
            context.driver.recordError("welcome_missing", count: gate.waitingCount)
        }
        holdEnded = true
        sending = false
        startResumeChecks()
    }

    /// Once every send is answered, connects each offline recipient with `?offset=0` to verify its log.
    private func startResumeChecks() {
        guard !verifying, pending.isEmpty else { return }
        verifying = true
        for (index, direction) in directions.enumerated() where direction.recipient == nil {
            let tag = devices.count + index
            let device = context.device(
                handler: self, userId: direction.recipientUser, deviceId: direction.recipientUser + "-phone",
                clientType: "ios", tag: tag, slot: 1, resumeOffset: 0)
            verifiers[tag] = ResumeCheck(direction: index, device: device)
            if context.driver.openExtraConnection(device) == nil { verifiers[tag]!.done = true }
        }
    }

    private func checkResumeDone(_ tag: Int, offset: Int64) {
        guard let check = verifiers[tag], !check.done, let last = check.lastReplayed else { return }
        if offset >= last || last == 0 {
            verifiers[tag]!.done = true
            check.device.close()
        }
    }

    var outstanding: Int {
        var missing = pending.count
        for direction in directions where direction.recipient != nil {
            missing += max(0, direction.sent - direction.failed.count - direction.received - direction.skipped)
        }
        if !verifying { missing += 1 }
        return missing + verifiers.values.filter { !$0.done }.count
    }

    func finish() {
        for direction in directions {
            let missing = direction.sent - direction.failed.count - direction.received - direction.skipped
            if missing > 0 {
                context.driver.recordError(
                    direction.recipient == nil ? "message_lost_offline" : "message_lost", count: missing)
            }
        }
        if !pending.isEmpty { context.driver.recordError("send_message_unanswered", count: pending.count) }
    }
}
