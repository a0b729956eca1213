import JSON

/// `approvals`: users each with a phone (ios) and a desktop connected; the backend posts approval requests at a
/// rate; a random device of the user answers after a random short delay, a fraction is left to time out.
///
/// Measures request→`approval_request` on each device (`approval_delivery`) and on both (`approval_delivery_all`),
/// answer→`approval_resolved` on the other device (`approval_resolved_other`), and timeout lateness (arrival of
/// `approval_timeout` − `expiresAt`, wall clock). Verifies every request reaches each device once and ends on each
/// device exactly once, the way it was meant to (answered or timed out). Loop-confined.
final class ApprovalsWorkload: GatewayWorkload, GatewayDeviceHandler {
    struct Options: Sendable {
        /// Approval requests posted per second, in total.
        var requestRate: Double
        /// Fraction of requests nobody answers (they must time out).
        var timeoutFraction: Double
        /// The backend's `timeoutSeconds` for every request.
        var timeoutSeconds: Double
        /// Answers are sent after a uniform random delay of 0 … this many milliseconds.
        var maxAnswerDelayMs: Int
    }

    private struct Record {
        var user: Int
        var t0: UInt64
        var willTimeout: Bool
        var answerSlot: Int
        var confirmed = false
        var requested = [false, false]
        var ended = [0, 0]
        var answeredAt: UInt64 = 0
        var complete: Bool { confirmed && requested[0] && requested[1] && ended[0] >= 1 && ended[1] >= 1 }
    }

    private let context: GatewayContext
    private let options: Options
    private let users: Int
    private var devices: [[GatewayDevice?]]
    private var records: [String: Record] = [:]
    private var incomplete = 0
    private var postsInFlight = 0
    private var posted = 0
    private var sending = false
    private var pacer = Pacer(perSecond: 1)
    /// Answers awaiting their reply: `answerKey` → request id.
    private var answers: [Int: String] = [:]

    /// Two devices per user: connections must be even (the command rounds them).
    init(context: GatewayContext, connections: Int, options: Options) {
        self.context = context
        self.options = options
        users = connections / 2
        devices = Array(repeating: [nil, nil], count: users)
    }

    static func setup(prefix: String, connections: Int) -> [[(method: String, path: String, body: String?)]] {
        PhoneAndDesktopUsers.setup(prefix: prefix, connections: connections)
    }

    func makeDevice(index: Int) -> GatewayDevice {
        PhoneAndDesktopUsers.makeDevice(index: index, context: context, handler: self, devices: &devices)
    }

    func startTraffic() {
        guard users > 0 else { return }
        sending = true
        pacer = Pacer(perSecond: options.requestRate)
        tick()
    }

    private func tick() {
        guard sending else { return }
        for _ in 0..<pacer.take() { post() }
        context.loop.schedule(afterMilliseconds: 2) { [self] in tick() }
    }

    private func post() {
        let user = Int(context.driver.random.next() % UInt64(users))
        let sequence = posted
        posted += 1
        postsInFlight += 1
        let willTimeout = Double(context.driver.random.next() % 1_000_000) / 1_000_000 < options.timeoutFraction
        let answerSlot = Int(context.driver.random.next() % 2)
        let session = PhoneAndDesktopUsers.sessionId(context.prefix, user)
        let timeout = options.timeoutSeconds
        context.call("POST", "/v1/sessions/\(session)/approvals", body: { t0 in
            """
            {"toolName":"load","summary":"request \(sequence)","timeoutSeconds":\(timeout),\
            "details":{"user":\(user),"t0":\(t0),"timeout":\(willTimeout),"answer":\(answerSlot)}}
            """
        }) { [self] result, micros in
            postsInFlight -= 1
            context.driver.stats.record("api_approval_post", microseconds: micros)
            guard case .success(let response) = result, response.status == 201,
                  case .object(let approval)? = try? JSONValue.parse(response.body),
                  let requestId = approval.string("requestId") else {
                context.recordAPIFailure(result)
                return
            }
            context.driver.stats.counts["approvals_posted", default: 0] += 1
            withRecord(requestId, approval) { $0.confirmed = true }
        }
    }

    /// Finds or creates the record of `requestId` from approval data (details carry user, t0 and the plan).
    private func withRecord(_ requestId: String, _ approval: [String: JSONValue], _ body: (inout Record) -> Void) {
        if records[requestId] == nil {
            let details = approval.object("details")
            guard let user = details.int("user"), let t0 = details.int("t0") else {
                context.driver.recordError("approval_unknown")
                return
            }
            records[requestId] = Record(
                user: Int(user), t0: UInt64(t0), willTimeout: details["timeout"] == .bool(true),
                answerSlot: Int(details.int("answer") ?? 0))
            incomplete += 1
        }
        let wasComplete = records[requestId]!.complete
        body(&records[requestId]!)
        if !wasComplete && records[requestId]!.complete { incomplete -= 1 }
    }

    func deviceIsReady(_ device: GatewayDevice) {}

    func device(_ device: GatewayDevice, received event: GatewayEvent) {
        guard event.type.hasPrefix("approval_"), let requestId = event.data.string("requestId") else { return }
        let slot = device.slot
        let now = MonotonicClock.nanoseconds()
        withRecord(requestId, event.data) { record in
            switch event.type {
            case "approval_request":
                guard !record.requested[slot] else { return context.driver.recordError("approval_request_duplicated") }
                record.requested[slot] = true
                context.driver.stats.record("approval_delivery", microseconds: (now &- record.t0) / 1000)
                if record.requested[1 - slot] {
                    context.driver.stats.record("approval_delivery_all", microseconds: (now &- record.t0) / 1000)
                }
                if !record.willTimeout && slot == record.answerSlot { scheduleAnswer(requestId, device) }
            case "approval_resolved", "approval_timeout":
                record.ended[slot] += 1
                if record.ended[slot] > 1 { return context.driver.recordError("approval_outcome_duplicated") }
                if event.type == "approval_resolved" {
                    if record.willTimeout { context.driver.recordError("approval_resolved_unexpectedly") }
                    if slot != record.answerSlot && record.answeredAt > 0 {
                        context.driver.stats.record("approval_resolved_other", microseconds: (now &- record.answeredAt) / 1000)
                        context.driver.stats.counts["approvals_resolved", default: 0] += 1
                    }
                } else {
                    if !record.willTimeout { context.driver.recordError("approval_timed_out_unexpectedly") }
                    let lateness = wallClockMicroseconds() - (event.data.int("expiresAt") ?? 0) * 1000
                    // expiresAt has millisecond resolution: up to 1 ms "early" is rounding, more is a bug.
                    if lateness < -1000 { context.driver.recordError("approval_timeout_early") }
                    context.driver.stats.record("approval_timeout_lateness", microseconds: UInt64(max(1, lateness)))
                    if slot == 0 { context.driver.stats.counts["approvals_timed_out", default: 0] += 1 }
                }
            default:
                break
            }
        }
    }

    private func scheduleAnswer(_ requestId: String, _ device: GatewayDevice) {
        let delay = UInt64(options.maxAnswerDelayMs > 0 ? Int(context.driver.random.next() % UInt64(options.maxAnswerDelayMs + 1)) : 0)
        context.loop.schedule(afterMilliseconds: delay) { [self] in
            let approve = context.driver.random.next() % 4 != 0
            guard let id = device.send(approve ? "approve" : "deny", "\"requestId\":\(requestId.jsonQuoted)") else {
                return context.driver.recordError("approval_answer_not_sent")
            }
            answers[Self.answerKey(device, id)] = requestId
            records[requestId]?.answeredAt = MonotonicClock.nanoseconds()
        }
    }

    func device(_ device: GatewayDevice, replied reply: GatewayReply) {
        guard answers.removeValue(forKey: Self.answerKey(device, reply.id)) != nil else { return }
        if !reply.ok { context.driver.recordError("approve_" + (reply.errorCode ?? "failed")) }
    }

    /// Command ids are per device: the key combines the device (user, slot) with the id.
    private static func answerKey(_ device: GatewayDevice, _ id: Int) -> Int { (device.tag * 2 + device.slot) << 32 | id }

    func deviceDidEnd(_ device: GatewayDevice) {}

    func stopSending() { sending = false }

    var outstanding: Int { postsInFlight + incomplete }

    func finish() {
        for record in records.values where !record.complete {
            let requests = record.requested.filter { !$0 }.count
            if requests > 0 { context.driver.recordError("approval_request_lost", count: requests) }
            let outcomes = record.ended.filter { $0 == 0 }.count
            if outcomes > 0 { context.driver.recordError("approval_outcome_lost", count: outcomes) }
            if !record.confirmed { context.driver.recordError("approval_post_unconfirmed") }
        }
        if postsInFlight > 0 { context.driver.recordError("approval_post_unanswered", count: postsInFlight) }
    }
}
