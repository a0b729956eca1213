/// `presence`: each planned connection is a watcher user whose one contact (a "subject" user) churns: connect, stay
/// a little, disconnect, and after the server's grace period go offline. Subjects connect at `churnRate` cycles per
/// second; a subject reconnects only after its watcher saw it go offline, so no transition is hidden by the grace
/// period. Measures connect start→`online` at the watcher (`presence_online`) and disconnect + grace→`offline` at the
/// watcher (`presence_offline_after_grace`); verifies each transition is seen exactly once and in order.
/// Loop-confined.
final class PresenceWorkload: GatewayWorkload, GatewayDeviceHandler {
    struct Options: Sendable {
        /// Subject connects per second, in total.
        var churnRate: Double
        /// The server's `gateway.presence_grace_ms` (only used to measure lateness and bound waits).
        var graceMs: Int
        /// A subject stays connected a uniform random 0 … this many milliseconds once it is online.
        var maxOnlineMs: Int
    }

    private enum Phase { case offline, connecting, online, leaving }

    private struct Subject {
        var phase = Phase.offline
        var device: GatewayDevice?
        var startedAt: UInt64 = 0
        var seenOnline = false
        var leftAt: UInt64 = 0
        var cycles = 0
    }

    private let context: GatewayContext
    private let options: Options
    private var watchers: [GatewayDevice?]
    private var subjects: [Subject]
    private var subjectIndex: [String: Int] = [:]
    private var sending = false
    private var pacer = Pacer(perSecond: 1)

    init(context: GatewayContext, connections: Int, options: Options) {
        self.context = context
        self.options = options
        watchers = Array(repeating: nil, count: connections)
        subjects = Array(repeating: Subject(), count: connections)
        for index in 0..<connections { subjectIndex[Self.subjectId(context.prefix, index)] = index }
    }

    static func watcherId(_ prefix: String, _ index: Int) -> String { "\(prefix)-w\(index)" }
    static func subjectId(_ prefix: String, _ index: Int) -> String { "\(prefix)-s\(index)" }

    /// Batch 0: watcher and subject users; batch 1: each pair as contacts.
    static func setup(prefix: String, connections: Int) -> [[(method: String, path: String, body: String?)]] {
        var users: [(method: String, path: String, body: String?)] = []
        var contacts: [(method: String, path: String, body: String?)] = []
        for index in 0..<connections {
            let w = watcherId(prefix, index), s = subjectId(prefix, index)
            users.append(("POST", "/v1/users", "{\"userId\":\(w.jsonQuoted)}"))
            users.append(("POST", "/v1/users", "{\"userId\":\(s.jsonQuoted)}"))
            contacts.append(("POST", "/v1/contacts", "{\"userA\":\(w.jsonQuoted),\"userB\":\(s.jsonQuoted)}"))
        }
        return [users, contacts]
    }

    func makeDevice(index: Int) -> GatewayDevice {
        let user = Self.watcherId(context.prefix, index)
        let device = context.device(handler: self, userId: user, deviceId: user + "-desk", clientType: "desktop", tag: index, slot: 0)
        watchers[index] = device
        return device
    }

    func startTraffic() {
        guard !subjects.isEmpty else { return }
        sending = true
        pacer = Pacer(perSecond: options.churnRate)
        tick()
    }

    private func tick() {
        guard sending else { return }
        for _ in 0..<pacer.take() {
            let index = Int(context.driver.random.next() % UInt64(subjects.count))
            if subjects[index].phase == .offline { connect(index) }  // busy subjects are skipped, not queued
        }
        context.loop.schedule(afterMilliseconds: 2) { [self] in tick() }
    }

    private func connect(_ index: Int) {
        let user = Self.subjectId(context.prefix, index)
        let device = context.device(handler: self, userId: user, deviceId: user + "-phone", clientType: "ios", tag: index, slot: 1)
        subjects[index] = Subject(phase: .connecting, device: device, startedAt: MonotonicClock.nanoseconds(),
                                  cycles: subjects[index].cycles)
        if context.driver.openExtraConnection(device) == nil { subjects[index].phase = .offline }
    }

    func deviceIsReady(_ device: GatewayDevice) {
        guard device.slot == 1, subjects[device.tag].phase == .connecting else { return }
        subjects[device.tag].phase = .online
        let stay = UInt64(Int(context.driver.random.next() % UInt64(max(1, options.maxOnlineMs + 1))))
        context.loop.schedule(afterMilliseconds: sending ? stay : 0) { [self] in leave(device.tag) }
    }

    private func leave(_ index: Int) {
        guard subjects[index].phase == .online else { return }
        subjects[index].phase = .leaving
        subjects[index].leftAt = MonotonicClock.nanoseconds()
        subjects[index].device?.close()
    }

    func device(_ device: GatewayDevice, received event: GatewayEvent) {
        guard device.slot == 0, event.type == "presence", let user = event.data.string("userId"),
              let index = subjectIndex[user], index == device.tag else { return }
        let status = event.data.string("status") ?? ""
        var subject = subjects[index]
        switch status {
        case "online" where !subject.seenOnline && (subject.phase == .connecting || subject.phase == .online || subject.phase == .leaving):
            subject.seenOnline = true
            context.driver.stats.record("presence_online", microseconds: MonotonicClock.microseconds(since: subject.startedAt))
        case "offline" where subject.seenOnline && subject.phase == .leaving:
            let sinceLeft = Int64(MonotonicClock.nanoseconds() &- subject.leftAt) / 1000
            let lateness = sinceLeft - Int64(options.graceMs) * 1000
            // Our close frame leaves before the server sees the disconnect, so early by more than 100 ms means the
            // grace period was not honoured (or --presence-grace-ms does not match the server).
            if lateness < -100_000 { context.driver.recordError("presence_offline_early") }
            context.driver.stats.record("presence_offline_after_grace", microseconds: UInt64(max(1, lateness)))
            context.driver.stats.counts["presence_cycles", default: 0] += 1
            subject.phase = .offline
            subject.device = nil
            subject.cycles += 1
            subject.seenOnline = false
        default:
            context.driver.recordError("presence_unexpected_\(status)")
        }
        subjects[index] = subject
    }

    func device(_ device: GatewayDevice, replied reply: GatewayReply) {}

    func deviceDidEnd(_ device: GatewayDevice) {
        // A subject that dropped before it was told to leave still goes offline after the grace period.
        guard device.slot == 1, subjects[device.tag].device === device else { return }
        if subjects[device.tag].phase == .connecting || subjects[device.tag].phase == .online {
            subjects[device.tag].phase = .leaving
            subjects[device.tag].leftAt = MonotonicClock.nanoseconds()
        }
    }

    func stopSending() {
        sending = false
        for index in subjects.indices where subjects[index].phase == .online { leave(index) }
    }

    var outstanding: Int { subjects.filter { $0.phase != .offline }.count }

    func finish() {
        let unfinished = subjects.filter { $0.phase != .offline }.count
        if unfinished > 0 { context.driver.recordError("presence_transition_lost", count: unfinished) }
    }
}
