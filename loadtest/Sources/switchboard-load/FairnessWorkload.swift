import Foundation

/// `fairness`: one user floods, another keeps a steady pace, and the second must still be served. Connections
/// 0..<n−1 are devices of the flooding user, each keeping `floodDepth` `history` commands in flight (a new one the
/// moment a reply arrives: as fast as the gateway answers); the last connection is the steady user's one device,
/// sending `history` at `steadyRate`. Both users are contacts, so every `history` is a real read of their
/// conversation. Metrics: the steady user's command→reply (`fair_reply`), and counts of replies and `overloaded`
/// refusals for each user. The gateway's per-socket and per-user shares of the command pool keep the second user
/// served, and its store reads taking turns per user keep them fast (docs/LIMITS.md). Loop-confined.
final class FairnessWorkload: GatewayWorkload, GatewayDeviceHandler {
    struct Options: Sendable {
        /// `history` commands each flooding socket keeps in flight.
        var floodDepth: Int
        /// The steady user's commands per second.
        var steadyRate: Double
        /// The p99 the steady user's replies must stay within; above it the run fails. 0: reported only.
        var requireP99Ms: Double
        /// Whether a refused (`overloaded`) or never answered second user fails the run: its own share of the pool
        /// keeps it served however the first floods, on any machine, where its latency depends on the machine.
        var requireServed: Bool
    }

    /// The verdict's bound: a second user's command replies p99 ≤ 50 ms while the first floods.
    static let targetP99Ms = 50.0

    private let context: GatewayContext
    private let options: Options
    private let connections: Int
    private var devices: [GatewayDevice?]
    /// Steady commands in flight: command id → send time (ns).
    private var steadySent: [Int: UInt64] = [:]
    private var floodInFlight: [Int] = []
    private var sending = false
    private var pacer = Pacer(perSecond: 1)

    init(context: GatewayContext, connections: Int, options: Options) {
        self.context = context
        self.options = options
        self.connections = connections
        devices = Array(repeating: nil, count: connections)
        floodInFlight = Array(repeating: 0, count: connections)
    }

    static func floodUser(_ prefix: String) -> String { prefix + "-flood" }
    static func steadyUser(_ prefix: String) -> String { prefix + "-steady" }

    /// Batch 0: both users; batch 1: their contact.
    static func setup(prefix: String) -> [[(method: String, path: String, body: String?)]] {
        let flood = floodUser(prefix), steady = steadyUser(prefix)
        return [
            [
                ("POST", "/v1/users", "{\"userId\":\(flood.jsonQuoted)}"),
                ("POST", "/v1/users", "{\"userId\":\(steady.jsonQuoted)}")
            ],
            [("POST", "/v1/contacts", "{\"userA\":\(flood.jsonQuoted),\"userB\":\(steady.jsonQuoted)}")]
        ]
    }

    private var steadyIndex: Int { connections - 1 }

    func makeDevice(index: Int) -> GatewayDevice {
        let steady = index == steadyIndex
        let user = steady ? Self.steadyUser(context.prefix) : Self.floodUser(context.prefix)
        let device = context.device(
            handler: self, userId: user, deviceId: user + "-d\(index)", clientType: "desktop",
            tag: index, slot: steady ? 1 : 0)
        devices[index] = device
        return device
    }

    func startTraffic() {
        sending = true
        for index in 0..<steadyIndex {
            for _ in 0..<options.floodDepth { flood(index) }
        }
        pacer = Pacer(perSecond: options.steadyRate)
        tick()
    }

    private func flood(_ index: Int) {
        guard sending, let device = devices[index],
            device.send("history", "\"with\":\(Self.steadyUser(context.prefix).jsonQuoted),\"limit\":20") != nil
        else { return }
        floodInFlight[index] += 1
    }

    private func tick() {
        guard sending else { return }
        for _ in 0..<pacer.take() {
            guard let device = devices[steadyIndex],
                let id = device.send("history", "\"with\":\(Self.floodUser(context.prefix).jsonQuoted),\"limit\":20")
            else {
                context.driver.recordError("fair_not_sent")
                continue
            }
            steadySent[id] = MonotonicClock.nanoseconds()
        }
        context.loop.schedule(afterMilliseconds: 1) { [self] in tick() }
    }

    func deviceIsReady(_ device: GatewayDevice) {}

    func device(_ device: GatewayDevice, received event: GatewayEvent) {}

    func device(_ device: GatewayDevice, replied reply: GatewayReply) {
        let stats = context.driver
        if device.tag == steadyIndex {
            guard let sentAt = steadySent.removeValue(forKey: reply.id) else {
                return stats.recordError("fair_unexpected_reply")
            }
            stats.stats.record("fair_reply", microseconds: MonotonicClock.microseconds(since: sentAt))
            stats.stats.counts[reply.ok ? "fair_served" : "fair_\(reply.errorCode ?? "failed")", default: 0] += 1
        } else {
            floodInFlight[device.tag] -= 1
            stats.stats.counts[reply.ok ? "flood_served" : "flood_\(reply.errorCode ?? "failed")", default: 0] += 1
            flood(device.tag)
        }
    }

    func deviceDidEnd(_ device: GatewayDevice) {}

    func stopSending() { sending = false }

    var outstanding: Int { steadySent.count + floodInFlight.reduce(0, +) }

    func finish() {
        if !steadySent.isEmpty { context.driver.recordError("fair_unanswered", count: steadySent.count) }
        let unanswered = floodInFlight.reduce(0, +)
        if unanswered > 0 { context.driver.recordError("flood_unanswered", count: unanswered) }
        // Refusals of the steady user other than overloaded are failures of the scenario, not of fairness.
        for (name, count) in context.driver.stats.counts
        where name.hasPrefix("fair_") && name != "fair_served" && name != "fair_overloaded" {
            context.driver.recordError(name, count: count)
        }
        let latency = context.driver.stats.latencies["fair_reply"] ?? LatencyHistogram()
        let p50 = Double(latency.value(atPercentile: 50)) / 1000, p99 = Double(latency.value(atPercentile: 99)) / 1000
        let counts = context.driver.stats.counts
        let met = latency.count > 0 && p99 <= Self.targetP99Ms
        FileHandle.standardError.write(
            Data(
                """
                fairness: second user: \(latency.count) replies, p50 \(String(format: "%.1f", p50)) ms, p99 \(String(format: "%.1f", p99)) ms, \
                \(counts["fair_overloaded", default: 0]) refused overloaded; flooding user (\(steadyIndex) sockets × \(options.floodDepth) in flight): \
                \(counts["flood_served", default: 0]) served, \(counts["flood_overloaded", default: 0]) refused overloaded; \
                verdict: \(met ? "met" : "missed") (target p99 ≤ \(Int(Self.targetP99Ms)) ms)

                """.utf8))
        if options.requireServed {
            if let refused = counts["fair_overloaded"], refused > 0 {
                context.driver.recordError("fair_overloaded", count: refused)
            }
            if latency.count == 0 { context.driver.recordError("fair_no_replies") }
        }
        if options.requireP99Ms > 0, !(latency.count > 0 && p99 <= options.requireP99Ms) {
            context.driver.recordError("fair_p99_over_\(Int(options.requireP99Ms))ms")
        }
    }
}
