import Foundation

/// `reach`: does every event reach the person — read and acknowledged on a socket, or pushed? Pairs of contacts:
/// in each pair a sender device sends numbered `send_message`s to the recipient's one device, which behaves as one of
/// three kinds of phone:
///
/// - **active**: reads every event and acknowledges it at once (`ack`): it must never be pushed;
/// - **suspended**: the socket stays open and the device never acknowledges (an iOS app suspended in the
///   background, whose socket looks open for tens of seconds): each message must be pushed after the gateway's
///   acknowledgement delay;
/// - **background**: says `app_state` `background` when it connects and never acknowledges: each message must be
///   pushed at once.
///
/// Every recipient registers a `webhook` push token (its device id), and the gateway's webhook provider posts every
/// push to the harness's own receiver (``ReachPushSink``). Reported per kind of device: the share of accepted
/// messages that reached it (acknowledged, or pushed), the push latency after the send (`reach_push_<kind>`), pushes
/// of messages the device had acknowledged (must be 0) and duplicate pushes of one message (must be 0; retries of one
/// push share a `webhook-id` and are not duplicates). A message that never reached its device is an error, as are
/// pushes of acknowledged messages and duplicates. Loop-confined.
final class ReachWorkload: GatewayWorkload, GatewayDeviceHandler {
    struct Options: Sendable {
        /// Messages sent per second, in total.
        var messageRate: Double
        /// Shares of the pairs whose recipient is suspended or in the background (the rest are active).
        var suspendedFraction: Double
        var backgroundFraction: Double
        /// The gateway's `gateway.push_ack_delay_ms`: the verdict's bound for suspended devices is this + 500 ms.
        var ackDelayMs: Double
        /// Where pushes arrive.
        var sink: ReachPushSink
    }

    /// How a recipient device behaves.
    enum Behaviour: String, CaseIterable, Sendable {
        case active, suspended, background
    }

    /// The pushes' latency bound past the delay (suspended) or past the send (background).
    static let pushSlackMs = 500.0

    private struct Pair {
        var behaviour: Behaviour
        var sender: GatewayDevice?
        var recipient: GatewayDevice?
        /// The recipient registered its push token (and said `background` when it does): messages may go.
        var armed = false
        var armingReplies: Set<Int> = []
        var sent = 0
    }

    /// One accepted message and what became of it.
    private struct Delivery {
        var pair: Int
        var sentAt: UInt64
        var ackedAt: UInt64?
        var firstPushAt: UInt64?
        var pushIds: Set<String> = []
    }

    private let context: GatewayContext
    private let options: Options
    private var pairs: [Pair]
    /// Send command → (pair, send time), per sender device tag.
    private var pending: [Int: (pair: Int, sentAt: UInt64)] = [:]
    private var deliveries: [String: Delivery] = [:]
    /// Events that arrived before their send's reply named their message id.
    private var early: [String: (ackedAt: UInt64?, pushes: [ReachPushSink.Push])] = [:]
    private var pairByRecipient: [String: Int] = [:]
    private var sending = false
    private var pacer = Pacer(perSecond: 1)
    /// Accepted messages that reached their device neither way yet.
    private var unreached = 0

    init(context: GatewayContext, connections: Int, options: Options) {
        self.context = context
        self.options = options
        let count = connections / 2
        let shares: [(Behaviour, Double)] = [
            (.suspended, options.suspendedFraction), (.background, options.backgroundFraction),
            (.active, max(0, 1 - options.suspendedFraction - options.backgroundFraction))
        ]
        // Interleaved, so every stretch of the connection ramp has each kind in its share: each pair goes to the kind
        // furthest below its share so far.
        var assigned: [Behaviour: Int] = [:]
        pairs = (0..<count).map { index in
            let behaviour = shares.max { a, b in
                a.1 * Double(index + 1) - Double(assigned[a.0, default: 0])
                    < b.1 * Double(index + 1) - Double(assigned[b.0, default: 0])
            }!.0
            assigned[behaviour, default: 0] += 1
            return Pair(behaviour: behaviour)
        }
        for index in pairs.indices { pairByRecipient[Self.recipientDevice(context.prefix, index)] = index }
    }

    static func senderUser(_ prefix: String, _ pair: Int) -> String { "\(prefix)-s\(pair)" }
    static func recipientUser(_ prefix: String, _ pair: Int) -> String { "\(prefix)-r\(pair)" }
    static func recipientDevice(_ prefix: String, _ pair: Int) -> String { recipientUser(prefix, pair) + "-phone" }

    /// Batch 0: both users of every pair; batch 1: the contact between them.
    static func setup(prefix: String, connections: Int) -> [[(method: String, path: String, body: String?)]] {
        var users: [(method: String, path: String, body: String?)] = []
        var contacts: [(method: String, path: String, body: String?)] = []
        for pair in 0..<connections / 2 {
            let a = senderUser(prefix, pair), b = recipientUser(prefix, pair)
            users.append(("POST", "/v1/users", "{\"userId\":\(a.jsonQuoted)}"))
            users.append(("POST", "/v1/users", "{\"userId\":\(b.jsonQuoted)}"))
            contacts.append(("POST", "/v1/contacts", "{\"userA\":\(a.jsonQuoted),\"userB\":\(b.jsonQuoted)}"))
        }
        return [users, contacts]
    }

    func makeDevice(index: Int) -> GatewayDevice {
        let pair = index / 2
        let device: GatewayDevice
        if index % 2 == 0 {
            let user = Self.senderUser(context.prefix, pair)
            device = context.device(
                handler: self, userId: user, deviceId: user + "-desk", clientType: "desktop", tag: index, slot: 0)
            pairs[pair].sender = device
        } else {
            device = context.device(
                handler: self, userId: Self.recipientUser(context.prefix, pair),
                deviceId: Self.recipientDevice(context.prefix, pair), clientType: "ios", tag: index, slot: 0)
            pairs[pair].recipient = device
        }
        return device
    }

    func startTraffic() {
        guard !pairs.isEmpty else { return }
        sending = true
        pacer = Pacer(perSecond: options.messageRate)
        tick()
    }

    private func tick() {
        collectPushes()
        if sending {
            for _ in 0..<pacer.take() { send(Int(context.driver.random.next() % UInt64(pairs.count))) }
        }
        if sending || outstanding > 0 { context.loop.schedule(afterMilliseconds: 2) { [self] in tick() } }
    }

    private func send(_ index: Int) {
        // A recipient not yet armed could not be pushed: its messages would measure the setup, not delivery.
        guard pairs[index].armed, let sender = pairs[index].sender,
            let id = sender.send(
                "send_message",
                """
                "to":\(Self.recipientUser(context.prefix, index).jsonQuoted),"text":"reach \(pairs[index].sent)",\
                "clientMessageId":"r\(index)-\(pairs[index].sent)"
                """)
        else {
            context.driver.stats.counts["reach_not_ready", default: 0] += 1
            return
        }
        pairs[index].sent += 1
        pending[sender.tag << 32 | id] = (index, MonotonicClock.nanoseconds())
    }

    func deviceIsReady(_ device: GatewayDevice) {
        guard device.tag % 2 == 1 else { return }
        let index = device.tag / 2
        var ids: Set<Int> = []
        if let id = device.send("push_register", "\"kind\":\"webhook\",\"token\":\(device.deviceId.jsonQuoted)") {
            ids.insert(id)
        }
        if pairs[index].behaviour == .background, let id = device.send("app_state", "\"state\":\"background\"") {
            ids.insert(id)
        }
        pairs[index].armingReplies = ids
    }

    func device(_ device: GatewayDevice, received event: GatewayEvent) {
        guard device.tag % 2 == 1, event.type == "message", let offset = event.offset,
            let messageId = event.data["messageId"].flatMap({ $0.int64Value }).map(String.init)
        else {
            // The sender's own copies: read and acknowledged, as an app in the foreground does.
            if device.tag % 2 == 0, let offset = event.offset { device.send("ack", "\"offset\":\(offset)") }
            return
        }
        guard pairs[device.tag / 2].behaviour == .active else { return }
        device.send("ack", "\"offset\":\(offset)")
        let now = MonotonicClock.nanoseconds()
        if let delivery = deliveries[messageId] {
            if !isReached(delivery) { unreached -= 1 }
            deliveries[messageId]!.ackedAt = now
        } else {
            early[messageId, default: (nil, [])].ackedAt = now
        }
    }

    func device(_ device: GatewayDevice, replied reply: GatewayReply) {
        if device.tag % 2 == 1 {
            let index = device.tag / 2
            guard pairs[index].armingReplies.remove(reply.id) != nil else { return }
            if !reply.ok { context.driver.recordError("reach_arming_" + (reply.errorCode ?? "failed")) }
            if pairs[index].armingReplies.isEmpty { pairs[index].armed = true }
            return
        }
        guard let (pair, sentAt) = pending.removeValue(forKey: device.tag << 32 | reply.id) else { return }
        guard reply.ok, let messageId = reply.result["messageId"]?.int64Value.map(String.init) else {
            if reply.errorCode == "overloaded" {
                context.driver.stats.counts["reach_refused_overloaded", default: 0] += 1
            } else {
                context.driver.recordError("send_message_" + (reply.errorCode ?? "failed"))
            }
            return
        }
        var delivery = Delivery(pair: pair, sentAt: sentAt)
        if let seen = early.removeValue(forKey: messageId) {
            delivery.ackedAt = seen.ackedAt
            for push in seen.pushes { record(push, in: &delivery) }
        }
        deliveries[messageId] = delivery
        if !isReached(delivery) { unreached += 1 }
    }

    private func collectPushes() {
        for push in options.sink.take() {
            guard push.type == "message", let key = push.key, pairByRecipient[push.target] != nil else {
                context.driver.stats.counts["reach_push_other_\(push.type)", default: 0] += 1
                continue
            }
            if let delivery = deliveries[key] {
                if !isReached(delivery) { unreached -= 1 }
                record(push, in: &deliveries[key]!)
            } else {
                early[key, default: (nil, [])].pushes.append(push)
            }
        }
    }

    private func record(_ push: ReachPushSink.Push, in delivery: inout Delivery) {
        if delivery.firstPushAt == nil { delivery.firstPushAt = push.at }
        delivery.pushIds.insert(push.webhookId)
    }

    func deviceDidEnd(_ device: GatewayDevice) {}

    func stopSending() { sending = false }

    /// Sends unanswered, and accepted messages that have reached their device neither way yet.
    var outstanding: Int { pending.count + unreached }

    private func isReached(_ delivery: Delivery) -> Bool {
        delivery.firstPushAt != nil || (delivery.ackedAt != nil && pairs[delivery.pair].behaviour == .active)
    }

    func finish() {
        collectPushes()
        let stats = context.driver
        if options.sink.unreadableCount > 0 {
            stats.recordError("reach_push_unreadable", count: options.sink.unreadableCount)
        }
        if !pending.isEmpty { stats.recordError("send_message_unanswered", count: pending.count) }
        var lines: [String] = []
        for behaviour in Behaviour.allCases {
            var total = 0, reached = 0, pushedAfterAck = 0, duplicates = 0
            let metric = "reach_push_\(behaviour.rawValue)"
            for delivery in deliveries.values where pairs[delivery.pair].behaviour == behaviour {
                total += 1
                if let pushedAt = delivery.firstPushAt {
                    reached += 1
                    stats.stats.record(metric, microseconds: (pushedAt &- delivery.sentAt) / 1000)
                    if let acked = delivery.ackedAt, acked < pushedAt { pushedAfterAck += 1 }
                } else if behaviour == .active, delivery.ackedAt != nil {
                    reached += 1
                }
                duplicates += max(0, delivery.pushIds.count - 1)
            }
            if total > reached { stats.recordError("reach_missed_\(behaviour.rawValue)", count: total - reached) }
            if pushedAfterAck > 0 { stats.recordError("reach_pushed_after_ack", count: pushedAfterAck) }
            if duplicates > 0 { stats.recordError("reach_duplicate_push", count: duplicates) }
            stats.stats.counts["reach_\(behaviour.rawValue)_events", default: 0] += total
            stats.stats.counts["reach_\(behaviour.rawValue)_reached", default: 0] += reached
            let latency = stats.stats.latencies[metric] ?? LatencyHistogram()
            let share = total == 0 ? 100 : Double(reached) * 100 / Double(total)
            var line = "\(behaviour.rawValue): \(reached)/\(total) reached (\(String(format: "%.2f", share)) %)"
            if latency.count > 0 {
                let p50 = Double(latency.value(atPercentile: 50)) / 1000
                let p99 = Double(latency.value(atPercentile: 99)) / 1000
                line += ", push p50 \(String(format: "%.0f", p50)) ms p99 \(String(format: "%.0f", p99)) ms"
                if let bound = bound(behaviour) {
                    line += p99 <= bound ? " (target ≤ \(Int(bound)) ms: met)" : " (target ≤ \(Int(bound)) ms: missed)"
                }
            }
            if behaviour == .active { line += ", \(pushedAfterAck) pushed after their ack" }
            line += ", \(duplicates) duplicate pushes"
            lines.append(line)
        }
        FileHandle.standardError.write(Data(("reach: " + lines.joined(separator: "; ") + "\n").utf8))
    }

    /// The push p99 each kind of device must see: the delay + slack when suspended, the slack in the background.
    private func bound(_ behaviour: Behaviour) -> Double? {
        switch behaviour {
        case .active: nil
        case .suspended: options.ackDelayMs + Self.pushSlackMs
        case .background: Self.pushSlackMs
        }
    }
}
