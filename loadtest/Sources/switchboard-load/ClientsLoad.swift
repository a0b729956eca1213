import Foundation
import SwitchboardClient

/// The `clients` scenario's core: `pairs` pairs of contacts, each user one `SwitchboardClient` (the library apps
/// use), sending `messagesPerClient` numbered messages to its partner, one every `sendInterval` with at most `window`
/// unanswered (``SwitchboardClient/enqueue(message:to:clientMessageId:)``: pipelined, in order), while connections
/// are cut every `cutEvery` seconds. Each receiver checks its partner's accepted numbers arrive once each and in
/// order (``PipelinedDeliveryCheck``), so the client's queue, resends with `clientMessageId`, resume and acks are what
/// is under load, not a hand-written socket.
///
/// A refusal the server marks as worth retrying (`storage_failed` while the database is unreachable, `overloaded`) is
/// sent again under the same `clientMessageId` after a short backoff, as an app would, and counted by code; so a
/// database restart under load shows up as errors and a stall, and is a failure only if the message is never
/// accepted (within `retryFor`) or arrives twice.
///
/// Thread/ownership: `run` is called once; the per-client state lives in ``ClientsLoad/Device`` behind a lock.
struct ClientsLoad: Sendable {
    /// What to run.
    struct Settings: Sendable {
        /// The gateway's WebSocket endpoint (`ws://host:port/v1/ws`).
        var url: String
        /// Pairs of users; every user is one client.
        var pairs: Int
        /// Messages each client sends to its partner.
        var messagesPerClient: Int
        /// Seconds between the starts of one client's sends (its rate is at most 1 / this).
        var sendInterval: Double
        /// Seconds between cuts of each client's connection (nil: never cut).
        var cutEvery: Double?
        /// Seconds to wait after the last send for the last deliveries.
        var drainTimeout: Double
        /// Stop sending once this file exists (the remaining numbers are not sent; nil: send them all).
        var stopFile: String? = nil
        /// Append one JSON line of running figures here every 100 ms (``ClientsLoad/Progress``).
        var progressFile: String? = nil
        /// Seconds one message is retried after retryable refusals before it counts as failed.
        var retryFor: Double = 60
        /// Sends one client may have unanswered at once (1: each waits for the previous reply).
        var window: Int = 1
    }

    /// What happened: every figure the report prints.
    struct Result: Sendable, Equatable {
        var clients = 0
        var sent = 0
        var failedSends = 0
        var delivered = 0
        var lost = 0
        var duplicatedOrReordered = 0
        var cuts = 0
        var reconnects = 0
        var seconds = 0.0
        /// Sends the server accepted (answered ok).
        var acknowledged = 0
        /// Refusals by error code, retried ones included.
        var errors: [String: Int] = [:]
        /// `presence` events saying a client's partner went offline (none expected while every client stays connected
        /// or reconnects within the grace period).
        var partnerOffline = 0
        /// The longest time one client spent between losing its connection and its next `welcome`.
        var longestReconnect = 0.0
        /// One line per client that lacks messages: who, from whom, the first number missing and the last expected.
        var lossDetails: [String] = []
        /// One line per client that got a message twice or out of order: the first such number and what came before.
        var orderDetails: [String] = []
        /// Refusals by code and the server's message (digits left out).
        var refusalReasons: [String: Int] = [:]
        /// `message` events the devices received, their own copies of what they sent included (each message is two
        /// events: one in the recipient's log, one in the sender's).
        var events = 0

        /// True when every message was accepted and arrived exactly once, in order.
        var passed: Bool { failedSends == 0 && lost == 0 && duplicatedOrReordered == 0 && delivered == sent }
    }

    let settings: Settings
    /// A token for `user`'s only device (`<user>-dev`).
    let token: @Sendable (_ user: String) -> String
    /// The user ids, `2 × pairs`, partners side by side (0–1, 2–3 …); they must already be contacts.
    let users: [String]

    /// One user's client, what it received and the connection it may cut.
    final class Device: @unchecked Sendable {
        // @unchecked: the mutable fields are guarded by `lock`; `client` is an actor.
        let user: String
        let partner: String
        var client: SwitchboardClient!
        private let lock = NSLock()
        /// The partner's numbers in arrival order, and the distinct ones (``PipelinedDeliveryCheck`` judges them at the end).
        private var fromPartner: [Int64] = []
        private var distinctFromPartner: Set<Int64> = []
        private var counts = (unreadable: 0, events: 0, connects: 0, cuts: 0, acknowledged: 0, partnerOffline: 0)
        private var current: CuttableTransport?
        private var errors: [String: Int] = [:]
        /// Refusals by code and the server's message (digits left out).
        private var reasons: [String: Int] = [:]
        /// The numbers the server accepted from this client (what its partner must receive, in order).
        private var acceptedNumbers: Set<Int64> = []
        /// Numbers refused retryably and sent again: they may land after numbers sent later (pipelining).
        private var retriedNumbers: Set<Int64> = []
        private var connected = false
        /// When the connection was lost, while it is.
        private var lostAt: ContinuousClock.Instant?
        private var longestReconnect: Duration = .zero

        init(user: String, partner: String) {
            self.user = user
            self.partner = partner
        }

        /// A new transport for the next connection attempt, remembered so ``cut()`` can drop it.
        func makeTransport() -> any WebSocketTransport {
            let transport = CuttableTransport(SwitchboardClient.Configuration.platformTransport())
            lock.withLock { current = transport }
            return transport
        }

        /// Drops the current connection as a network loss would (no close frame reaches the client).
        func cut() async {
            guard let transport = lock.withLock({ current }) else { return }
            if await transport.cut() { lock.withLock { counts.cuts += 1 } }
        }

        func handle(_ event: ClientEvent) {
            lock.withLock {
                switch event {
                case .connection(.connected):
                    counts.connects += 1
                    connected = true
                    if let lostAt { longestReconnect = max(longestReconnect, ContinuousClock.now - lostAt) }
                    lostAt = nil
                case .connection(.waitingToReconnect):
                    if connected { lostAt = ContinuousClock.now }
                    connected = false
                case .presence(let presence) where presence.userId == partner && presence.status == "offline":
                    counts.partnerOffline += 1
                case .message(let message) where message.from == partner:
                    counts.events += 1
                    guard let number = Int64(message.text) else { counts.unreadable += 1; return }
                    fromPartner.append(number)
                    distinctFromPartner.insert(number)
                case .message:
                    counts.events += 1
                default:
                    break
                }
            }
        }

        /// Distinct numbers received from the partner.
        var delivered: Int { lock.withLock { distinctFromPartner.count } }
        var hasConnected: Bool { lock.withLock { counts.connects > 0 } }
        var isConnected: Bool { lock.withLock { connected } }
        /// The numbers the server accepted from this client, and those among them that were sent more than once.
        var accepted: (numbers: Set<Int64>, retried: Set<Int64>) { lock.withLock { (acceptedNumbers, retriedNumbers) } }

        /// The server accepted message `number`.
        func accepted(_ number: Int64) {
            lock.withLock {
                counts.acknowledged += 1
                acceptedNumbers.insert(number)
            }
        }

        /// Message `number` is sent again after a retryable refusal.
        func retrying(_ number: Int64) { _ = lock.withLock { retriedNumbers.insert(number) } }

        /// The server refused a send with `code` (or it failed locally: the client's own error name).
        func refused(_ code: String, reason: String) {
            lock.withLock {
                errors[code, default: 0] += 1
                // Numbers vary from one refusal to the next; without them the reasons group.
                reasons[code + ": " + String(reason.filter { !$0.isNumber }.prefix(100)), default: 0] += 1
            }
        }

        /// Running figures for the progress file: acknowledged sends, deliveries, refusals, partner-offline events.
        var running: (acknowledged: Int, delivered: Int, events: Int, errors: [String: Int], partnerOffline: Int) {
            lock.withLock { (counts.acknowledged, distinctFromPartner.count, counts.events, errors, counts.partnerOffline) }
        }

        /// Adds this device's figures: every number in `expected` (what the partner had accepted) must have arrived
        /// once, and in order except for those in `retried`.
        func add(to result: inout Result, expected: Set<Int64>, retried: Set<Int64>) {
            lock.withLock {
                let check = PipelinedDeliveryCheck(received: fromPartner, accepted: expected, retried: retried)
                result.delivered += check.delivered
                result.duplicatedOrReordered += check.duplicatedOrReordered + counts.unreadable
                result.lost += check.lost
                if let (number, after) = check.firstOutOfOrder {
                    result.orderDetails.append("\(user) from \(partner): \(check.duplicatedOrReordered) duplicated or reordered, the first \(number) after \(after)")
                }
                result.refusalReasons.merge(reasons, uniquingKeysWith: +)
                if let first = check.firstMissing {
                    result.lossDetails.append("\(user) from \(partner): \(check.lost) of \(expected.count) missing, the first \(first)")
                }
                result.events += counts.events
                result.cuts += counts.cuts
                result.reconnects += max(0, counts.connects - 1)
                result.acknowledged += counts.acknowledged
                result.partnerOffline += counts.partnerOffline
                result.errors.merge(errors, uniquingKeysWith: +)
                result.longestReconnect = max(result.longestReconnect, longestReconnect.seconds)
            }
        }
    }

    /// Runs the scenario to the end (sends, drain, disconnect) and returns the figures.
    func run() async -> Result {
        let started = ContinuousClock.now
        let devices = users.indices.map { Device(user: users[$0], partner: users[$0 ^ 1]) }
        for device in devices {
            let user = device.user
            var configuration = SwitchboardClient.Configuration(url: settings.url) { _ in token(user) }
            configuration.reconnect = ReconnectPolicy(initialDelay: 0.05, maxDelay: 1)
            configuration.transport = { device.makeTransport() }
            device.client = SwitchboardClient(configuration)
        }
        let consumers = devices.map { device in
            Task {
                await device.client.connect()
                for await event in device.client.events { device.handle(event) }
            }
        }
        // A device without an offset starts at the live end of its log: messages to it count from its first
        // welcome on, so nobody sends before every device had one (bounded by the drain timeout).
        let connectDeadline = ContinuousClock.now + .seconds(10) + .milliseconds(Int64(settings.drainTimeout * 1000))
        while devices.contains(where: { !$0.hasConnected }), ContinuousClock.now < connectDeadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let cutters = devices.enumerated().compactMap { index, device -> Task<Void, Never>? in
            guard let every = settings.cutEvery else { return nil }
            // Staggered, so cuts are spread over the interval instead of hitting every client at once.
            let first = every * Double(index + 1) / Double(devices.count)
            return Task {
                var wait = first
                while (try? await Task.sleep(for: .milliseconds(Int64(wait * 1000)))) != nil {
                    await device.cut()
                    wait = every
                }
            }
        }
        let progress = settings.progressFile.map { ClientsProgress(path: $0, devices: devices) }
        let failures = await withTaskGroup(of: Int.self) { group in
            for device in devices {
                group.addTask { await sendAll(from: device) }
            }
            return await group.reduce(0, +)
        }
        for cutter in cutters { cutter.cancel() }
        // Each partner must get, in order, every number this client had accepted (a message refused for good may still
        // arrive: its reply was lost, not its commit).
        let expected = devices.indices.map { devices[$0 ^ 1].accepted }
        let deadline = ContinuousClock.now + .milliseconds(Int64(settings.drainTimeout * 1000))
        while devices.indices.contains(where: { devices[$0].delivered < expected[$0].numbers.count }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        await progress?.stop()
        var result = Result(clients: devices.count, sent: expected.reduce(0) { $0 + $1.numbers.count }, failedSends: failures)
        for (index, device) in devices.enumerated() {
            device.add(to: &result, expected: expected[index].numbers, retried: expected[index].retried)
            await device.client.disconnect()
        }
        for consumer in consumers { await consumer.value }
        result.seconds = (ContinuousClock.now - started).seconds
        return result
    }

    /// Sends `device`'s numbered messages to its partner, one started every `sendInterval` (no catching up after a
    /// stall) with at most `window` unanswered, until all are sent or the stop file appears; then waits for the
    /// replies. Returns 1 when one was refused for good.
    private func sendAll(from device: Device) async -> Int {
        let window = max(1, settings.window)
        let interval = Duration.milliseconds(Int64(settings.sendInterval * 1000))
        var unanswered: [(number: Int64, reply: Task<SentMessage, any Error>)] = []
        var nextStart = ContinuousClock.now
        var failed = 0
        for number in Int64(1)...Int64(settings.messagesPerClient) {
            if let stopFile = settings.stopFile, FileManager.default.fileExists(atPath: stopFile) { break }
            if unanswered.count >= window {
                let oldest = unanswered.removeFirst()
                failed += await settle(oldest.number, oldest.reply, from: device)
                if failed > 0 { break }
            }
            unanswered.append((number, await submit(number, from: device)))
            nextStart = max(nextStart + interval, ContinuousClock.now)
            if interval > .zero { try? await Task.sleep(until: nextStart) }
        }
        for entry in unanswered { failed += await settle(entry.number, entry.reply, from: device) }
        return min(failed, 1)
    }

    /// Queues message `number` (pipelined behind the client's earlier ones); a local refusal (queue full, client
    /// stopped) comes out of the returned task like a server's.
    private func submit(_ number: Int64, from device: Device) async -> Task<SentMessage, any Error> {
        // The id makes resends (the client's own after a cut, and ours after a retryable refusal) safe.
        do {
            return try await device.client.enqueue(message: "\(number)", to: device.partner, clientMessageId: "\(device.user)-\(number)")
        } catch {
            return Task { throw error }
        }
    }

    /// Waits for message `number`'s reply; a retryable refusal is sent again under the same `clientMessageId` after a
    /// backoff (50 ms doubling to 1 s) until accepted or `retryFor` has passed. Returns 1 when refused for good.
    private func settle(_ number: Int64, _ first: Task<SentMessage, any Error>, from device: Device) async -> Int {
        let giveUp = ContinuousClock.now + .milliseconds(Int64(settings.retryFor * 1000))
        var reply = first
        var backoffMs: Int64 = 50
        while true {
            do {
                _ = try await reply.value
                device.accepted(number)
                return 0
            } catch {
                let (code, reason): (String, String)
                if case ClientError.server(let wire, let message) = error { (code, reason) = (wire, message) } else { (code, reason) = ("\(error)", "") }
                device.refused(code, reason: reason)
                guard Self.retryable.contains(code), ContinuousClock.now < giveUp else { return 1 }
                device.retrying(number)
                try? await Task.sleep(for: .milliseconds(backoffMs))
                backoffMs = min(backoffMs * 2, 1000)
                reply = await submit(number, from: device)
            }
        }
    }

    /// Refusals that say "nothing was done, try again" (docs/PROTOCOL.md, "Error codes").
    static let retryable: Set<String> = ["storage_failed", "overloaded"]
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// A transport that can be dropped from outside, as a lost network would drop it: the client sees its connection
/// end without a close frame (`closed(code: nil)`) and reconnects with backoff and resume.
/// `@unchecked Sendable`: `isCut` is guarded by `lock`; `inner` is Sendable.
final class CuttableTransport: WebSocketTransport, @unchecked Sendable {
    private let inner: any WebSocketTransport
    private let lock = NSLock()
    private var isCut = false
    private var isOpen = false

    init(_ inner: any WebSocketTransport) { self.inner = inner }

    func connect(to url: WebSocketURL) async throws {
        try await inner.connect(to: url)
        lock.withLock { isOpen = true }
    }

    func send(text: String) async throws {
        if lock.withLock({ isCut }) { throw TransportError.closed(code: nil) }
        try await inner.send(text: text)
    }

    func receive() async throws -> String {
        do {
            let text = try await inner.receive()
            // Arrived after the cut: a real network loss would have lost it too.
            if lock.withLock({ isCut }) { throw TransportError.closed(code: nil) }
            return text
        } catch {
            if lock.withLock({ isCut }) { throw TransportError.closed(code: nil) }
            throw error
        }
    }

    func close(code: UInt16) async { await inner.close(code: code) }

    /// Drops an open connection; false when it was not open (connecting, or already ended).
    func cut() async -> Bool {
        let cutNow = lock.withLock { () -> Bool in
            guard isOpen, !isCut else { return false }
            isCut = true
            return true
        }
        if cutNow { await inner.close(code: 1001) }
        return cutNow
    }
}
