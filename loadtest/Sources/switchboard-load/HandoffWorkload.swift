/// `handoff`: one session per user bouncing between the user's two devices (ios phone, desktop) with
/// `session_attach`. After a first attach by the phone (no handoff: the session had no active device), every attach
/// by the inactive device must produce exactly one `session_handoff` on each device, naming the new device.
/// Measures attach→`session_handoff` on the previous device (`handoff`). One attach per user in flight at a time,
/// so the expected order is known. Loop-confined.
final class HandoffWorkload: GatewayWorkload, GatewayDeviceHandler {
    struct Options: Sendable {
        /// Attaches per second, in total.
        var attachRate: Double
    }

    private struct UserState {
        var active = -1
        /// Attaches in flight (reply not yet seen).
        var attachInFlight = false
        /// Per handoff k: the slot that took over and when the attach was sent.
        var handoffs: [(slot: Int, t0: UInt64)] = []
        var received = [0, 0]
        var idle: Bool { !attachInFlight && received[0] == handoffs.count && received[1] == handoffs.count }
    }

    private let context: GatewayContext
    private let options: Options
    private var devices: [[GatewayDevice?]]
    private var users: [UserState]
    private var pending: [Int: Int] = [:]  // command key → user
    private var sending = false
    private var pacer = Pacer(perSecond: 1)

    init(context: GatewayContext, connections: Int, options: Options) {
        self.context = context
        self.options = options
        devices = Array(repeating: [nil, nil], count: connections / 2)
        users = Array(repeating: UserState(), count: connections / 2)
    }

    static func setup(prefix: String, connections: Int) -> [[(method: String, path: String, body: String?)]] {
        PhoneAndDesktopUsers.setup(prefix: prefix, connections: connections)
    }

    func makeDevice(index: Int) -> GatewayDevice {
        PhoneAndDesktopUsers.makeDevice(index: index, context: context, handler: self, devices: &devices)
    }

    func startTraffic() {
        guard !users.isEmpty else { return }
        sending = true
        for user in users.indices { attach(user, slot: 0, first: true) }
        pacer = Pacer(perSecond: options.attachRate)
        tick()
    }

    private func attach(_ user: Int, slot: Int, first: Bool = false) {
        guard let device = devices[user][slot],
              let id = device.send("session_attach", "\"sessionId\":\((device.userId + "-s").jsonQuoted)") else {
            return context.driver.recordError("handoff_attach_not_sent")
        }
        users[user].attachInFlight = true
        if !first { users[user].handoffs.append((slot, MonotonicClock.nanoseconds())) }
        pending[Self.key(user, slot, id)] = user
    }

    private static func key(_ user: Int, _ slot: Int, _ id: Int) -> Int { (user * 2 + slot) << 32 | id }

    private func tick() {
        guard sending else { return }
        let due = pacer.take()
        if due > 0 {
            // Random users that are idle; a busy one is skipped (one attach in flight per user keeps order known).
            for _ in 0..<due {
                let user = Int(context.driver.random.next() % UInt64(users.count))
                guard users[user].idle, users[user].active >= 0 else { continue }
                attach(user, slot: 1 - users[user].active)
            }
        }
        context.loop.schedule(afterMilliseconds: 2) { [self] in tick() }
    }

    func deviceIsReady(_ device: GatewayDevice) {}

    func device(_ device: GatewayDevice, received event: GatewayEvent) {
        guard event.type == "session_handoff" else { return }
        let user = device.tag, slot = device.slot
        let k = users[user].received[slot]
        guard k < users[user].handoffs.count else { return context.driver.recordError("handoff_unexpected") }
        users[user].received[slot] += 1
        let expected = users[user].handoffs[k]
        let to = event.data.object("handedOffTo").string("deviceId")
        let previous = event.data.object("previous").string("deviceId")
        guard to == devices[user][expected.slot]?.deviceId, previous == devices[user][1 - expected.slot]?.deviceId else {
            return context.driver.recordError("handoff_wrong_devices")
        }
        if slot != expected.slot {
            context.driver.stats.record("handoff", microseconds: MonotonicClock.microseconds(since: expected.t0))
            context.driver.stats.counts["handoffs", default: 0] += 1
        }
    }

    func device(_ device: GatewayDevice, replied reply: GatewayReply) {
        guard let user = pending.removeValue(forKey: Self.key(device.tag, device.slot, reply.id)) else { return }
        users[user].attachInFlight = false
        if reply.ok {
            users[user].active = device.slot
        } else {
            context.driver.recordError("attach_" + (reply.errorCode ?? "failed"))
            if let last = users[user].handoffs.last, last.slot == device.slot { users[user].handoffs.removeLast() }
        }
    }

    func deviceDidEnd(_ device: GatewayDevice) {}

    func stopSending() { sending = false }

    var outstanding: Int {
        users.reduce(0) { total, user in
            total + (user.attachInFlight ? 1 : 0) + 2 * user.handoffs.count - user.received[0] - user.received[1]
        }
    }

    func finish() {
        let missing = users.reduce(0) { $0 + 2 * $1.handoffs.count - $1.received[0] - $1.received[1] }
        if missing > 0 { context.driver.recordError("handoff_lost", count: missing) }
        let unanswered = users.filter(\.attachInFlight).count
        if unanswered > 0 { context.driver.recordError("attach_unanswered", count: unanswered) }
    }
}
