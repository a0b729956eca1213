import JSON

/// `fanout`: every connection is a device of ONE user (distinct device ids); the backend publishes
/// `POST /v1/users/{id}/events` at a rate. Measures publish→delivery per subscriber (`publish_delivery`) and, once per
/// publish, publish→the last subscriber (`publish_delivery_last`) and the first subscriber→the last
/// (`publish_spread`: how long one fan-out takes, commit excluded); verifies each subscriber receives every offset once
/// and in order (offsets of a user have no gaps, PROTOCOL.md), starting right after the `latestOffset` of its
/// `welcome`. Loop-confined.
final class FanoutWorkload: GatewayWorkload, GatewayDeviceHandler {
    struct Options: Sendable {
        /// Publishes per second.
        var publishRate: Double
    }

    private let context: GatewayContext
    private let options: Options
    private var devices: [GatewayDevice?]
    /// Per subscriber, from the offset after its welcome's `latestOffset`; nil until the welcome.
    private var verifiers: [OrderedDeliveryVerifier?]
    private var highestPublished: Int64 = 0
    private var postsInFlight = 0
    private var published = 0
    private var sending = false
    private var pacer = Pacer(perSecond: 1)
    /// Subscribers that got their welcome: a publish has reached its last subscriber when this many have it.
    private var ready = 0
    /// Per publish (`seq`) still reaching subscribers: its POST's start, first and last arrival (ns), arrivals so far.
    private var arrivals: [Int64: (t0: UInt64, first: UInt64, last: UInt64, count: Int)] = [:]

    init(context: GatewayContext, connections: Int, options: Options) {
        self.context = context
        self.options = options
        devices = Array(repeating: nil, count: connections)
        verifiers = Array(repeating: nil, count: connections)
    }

    private var userId: String { context.prefix + "-u0" }

    func makeDevice(index: Int) -> GatewayDevice {
        let types = ["ios", "android", "desktop", "web"]
        let device = context.device(
            handler: self, userId: userId, deviceId: "\(userId)-d\(index)", clientType: types[index % types.count],
            tag: index, slot: 0)
        devices[index] = device
        return device
    }

    func startTraffic() {
        sending = true
        pacer = Pacer(perSecond: options.publishRate)
        tick()
    }

    private func tick() {
        guard sending else { return }
        for _ in 0..<pacer.take() { publish() }
        context.loop.schedule(afterMilliseconds: 2) { [self] in tick() }
    }

    private func publish() {
        let sequence = published
        published += 1
        postsInFlight += 1
        context.call("POST", "/v1/users/\(userId)/events", body: { t0 in
            "{\"name\":\"load\",\"payload\":{\"seq\":\(sequence),\"t0\":\(t0)}}"
        }) { [self] result, micros in
            postsInFlight -= 1
            context.driver.stats.record("api_publish", microseconds: micros)
            guard case .success(let response) = result, response.status == 201,
                  case .object(let body)? = try? JSONValue.parse(response.body), let offset = body.int("offset") else {
                return context.recordAPIFailure(result)
            }
            context.driver.stats.counts["publishes", default: 0] += 1
            highestPublished = max(highestPublished, offset)
        }
    }

    func deviceIsReady(_ device: GatewayDevice) {
        verifiers[device.tag] = OrderedDeliveryVerifier(first: device.welcomeOffset + 1)
        ready += 1
    }

    func device(_ device: GatewayDevice, received event: GatewayEvent) {
        guard event.type == "custom", let offset = event.offset else { return }
        guard var verifier = verifiers[device.tag] else { return context.driver.recordError("fanout_before_welcome") }
        defer { verifiers[device.tag] = verifier }
        switch verifier.receive(offset) {
        case .duplicateOrReordered: return context.driver.recordError("fanout_duplicated_or_reordered")
        case .inOrder(let skipped): if skipped > 0 { context.driver.recordError("fanout_lost", count: skipped) }
        }
        context.driver.stats.counts["deliveries", default: 0] += 1
        let payload = event.data.object("payload")
        guard let t0 = payload.int("t0") else { return }
        context.driver.stats.record("publish_delivery", microseconds: MonotonicClock.microseconds(since: UInt64(t0)))
        guard let seq = payload.int("seq") else { return }
        let now = MonotonicClock.nanoseconds()
        var arrival = arrivals[seq] ?? (UInt64(t0), now, now, 0)
        arrival.last = now
        arrival.count += 1
        if arrival.count >= ready {
            arrivals[seq] = nil
            recordLast(arrival)
        } else {
            arrivals[seq] = arrival
        }
    }

    /// One sample per publish: POST → its last subscriber, and first → last subscriber.
    private func recordLast(_ arrival: (t0: UInt64, first: UInt64, last: UInt64, count: Int)) {
        context.driver.stats.record("publish_delivery_last", microseconds: max(1, (arrival.last &- arrival.t0) / 1000))
        context.driver.stats.record("publish_spread", microseconds: max(1, (arrival.last - arrival.first) / 1000))
    }

    func device(_ device: GatewayDevice, replied reply: GatewayReply) {}

    func deviceDidEnd(_ device: GatewayDevice) {}

    func stopSending() { sending = false }

    var outstanding: Int {
        var missing = postsInFlight
        for (index, device) in devices.enumerated() where device?.isReady == true {
            missing += verifiers[index]?.missing(through: highestPublished) ?? 0
        }
        return missing
    }

    func finish() {
        // A publish some subscriber never got is a loss (below); its latest arrival still bounds the fan-out.
        for arrival in arrivals.values { recordLast(arrival) }
        arrivals = [:]
        for verifier in verifiers {
            let missing = verifier?.missing(through: highestPublished) ?? 0
            if missing > 0 { context.driver.recordError("fanout_lost", count: missing) }
        }
    }
}
