import Foundation

/// A Switchboard gateway client: one authenticated WebSocket to `/v1/ws`, kept alive across network loss, server
/// restarts and token expiry, with resume from the last handled offset, automatic acks and typed commands.
///
/// ```swift
/// let client = SwitchboardClient(.init(url: "wss://gw.example.com/v1/ws") { _ in try await backend.token() })
/// await client.connect()
/// for await event in client.events { … }      // handled events are acknowledged when you ask for the next one
/// try await client.approve("apr_12")
/// ```
///
/// Lifecycle: connect → `welcome` → `resume` (replay after the stored offset) → live → on loss, backoff and again.
/// Commands issued while disconnected wait in a bounded queue and are sent in order after the resume.
public actor SwitchboardClient {
    /// Why the token provider is asked for a token.
    public enum TokenRequest: Sendable, Equatable {
        /// The first connection.
        case initial
        /// A reconnect after a network loss or server restart: a cached token is fine if still valid.
        case reconnect
        /// The gateway rejected the last token (401, close 4001/4003): return a new one.
        case rejected
    }

    /// What the client needs; everything but `url` and `tokenProvider` has a default.
    public struct Configuration: Sendable {
        /// The gateway's WebSocket endpoint, e.g. `wss://gw.example.com/v1/ws`.
        public var url: String
        /// Returns a JWT for this device (docs/PROTOCOL.md, "Identity"); called before every connection attempt.
        public var tokenProvider: @Sendable (TokenRequest) async throws -> String
        /// Where the last handled offset is kept (default: in memory).
        public var offsetStore: any OffsetStore
        /// Backoff and the close-code rules.
        public var reconnect: ReconnectPolicy
        /// Sleeping and "now"; tests inject their own.
        public var clock: any ClientClock
        /// A uniform random number in `0..<1` for backoff jitter; tests inject their own.
        public var random: @Sendable () -> Double
        /// How many commands may wait for a connection before ``ClientError/queueFull``.
        public var maxQueuedCommands: Int
        /// Makes the transport for one connection attempt (default: URLSession on Apple platforms, the event loop on Linux).
        public var transport: @Sendable () -> any WebSocketTransport

        public init(url: String, offsetStore: any OffsetStore = InMemoryOffsetStore(),
                    tokenProvider: @escaping @Sendable (TokenRequest) async throws -> String) {
            self.url = url
            self.tokenProvider = tokenProvider
            self.offsetStore = offsetStore
            reconnect = ReconnectPolicy()
            clock = SystemClientClock()
            random = { Double.random(in: 0..<1) }
            maxQueuedCommands = 256
            transport = Self.platformTransport
        }

        /// The platform's transport: `URLSessionWebSocketTask` on Apple platforms, the project's loop on Linux.
        public static let platformTransport: @Sendable () -> any WebSocketTransport = {
            #if canImport(Darwin)
            return URLSessionWebSocketTransport()
            #else
            return LoopWebSocketTransport()
            #endif
        }
    }

    /// A command waiting to be sent or for its reply.
    private struct Outgoing {
        let id: String
        let frame: String
        /// Sent again when the connection drops before its reply (see ``ClientCommandKind/isSafeToResend(_:)``).
        var resend = true
    }

    let configuration: Configuration
    private var runTask: Task<Void, Never>?
    private var transport: (any WebSocketTransport)?
    /// True between the server's welcome/resume and the end of the connection: commands go out directly.
    private var isLive = false
    private var isPumping = false
    private var stopped = false
    private var queue: [Outgoing] = []
    private var inFlight: [Outgoing] = []
    /// Who waits for each command's reply (``command(_:_:)``'s continuation, ``enqueue(_:_:)``'s stream).
    private var waiters: [String: (Result<JSONValue, any Error>) -> Void] = [:]
    private var nextCommand = 0
    /// Events received and not yet handed to the app, with their offsets (nil for ephemeral events).
    private var buffered: [(event: ClientEvent, offset: Int64?)] = []
    private var eventWaiter: CheckedContinuation<ClientEvent?, Never>?
    /// The offset of the event the app is handling now; acknowledged when it asks for the next one.
    private var handling: Int64?
    /// The highest offset received (buffered or handled): replays at or below it are dropped, so nothing is seen twice.
    private var highestReceived: Int64?
    private var expectingResume = false
    /// The server's `latestOffset` from this connection's welcome.
    private var serverLatest: Int64 = 0
    /// The server's clock relative to this device's, from the last `welcome` (zero offset before the first one):
    /// approval countdowns use it (``ServerClock/remainingSeconds(of:deviceNow:)``, ``remainingSeconds(of:)``).
    public private(set) var serverClock = ServerClock()

    /// Creates a client; nothing happens until ``connect()``.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        highestReceived = configuration.offsetStore.load()
    }

    /// The events, in order. Iterate it from one task: asking for the next element acknowledges the previous
    /// durable event (stores its offset and sends `ack`). Ends after ``disconnect()`` or when the client stops.
    public nonisolated var events: AsyncStream<ClientEvent> {
        AsyncStream(unfolding: { [weak self] in await self?.nextEvent() })
    }

    /// Starts connecting (and reconnecting) in the background. Calling it again while running does nothing.
    public func connect() {
        guard runTask == nil, !stopped else { return }
        runTask = Task { await self.run() }
    }

    /// Closes the connection (1000), fails waiting commands with ``ClientError/stopped(reason:)`` and ends
    /// ``events`` once the buffered events are handled. The client cannot be restarted; make a new one.
    public func disconnect() async {
        await stop(.stopped(reason: "disconnected by the app"))
    }

    /// Seconds left to answer `approval` now, on the server's clock (``serverClock``): what a countdown shows,
    /// right even when the device's clock is off.
    public func remainingSeconds(of approval: ApprovalData) -> Double {
        serverClock.remainingSeconds(of: approval, deviceNow: configuration.clock.nowMilliseconds())
    }

    // MARK: Commands

    /// Commands waiting for a connection (queued, not yet sent), e.g. for a "3 actions waiting to send" hint.
    public var queuedCommandCount: Int { queue.count { waiters[$0.id] != nil } }

    /// Sends a command (`type` plus `fields`) and returns its `result`; throws ``ClientError/server(code:message:)``
    /// when the gateway refuses it. Queued while disconnected and sent after the resume; a command that was sent
    /// but not answered when the connection dropped is sent again after the reconnect.
    public func command(_ type: String, _ fields: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await withCheckedThrowingContinuation { waiter in
            do { try submit(type, fields) { waiter.resume(with: $0) } } catch { waiter.resume(throwing: error) }
        }
    }

    /// Queues a command like ``command(_:_:)`` but returns as soon as it is queued, with a task that finishes with
    /// its `result`. Commands queued one after the other go out in that order and can wait for their replies at once
    /// (a pipeline), which ``command(_:_:)`` calls from different tasks do not promise (their tasks may reach the
    /// client in any order). Throws ``ClientError/queueFull`` or ``ClientError/stopped(reason:)`` at once.
    public func enqueue(_ type: String, _ fields: [String: JSONValue] = [:]) throws -> Task<JSONValue, any Error> {
        let (reply, answered) = AsyncThrowingStream<JSONValue, any Error>.makeStream()
        try submit(type, fields) { result in
            answered.yield(with: result)  // a failure ends the stream with that error
            answered.finish()
        }
        return Task {
            for try await result in reply { return result }
            throw ClientError.stopped(reason: "the client is stopped")
        }
    }

    /// Puts a command in the queue, in call order; `done` gets its reply (or the reason it will never come).
    private func submit(_ type: String, _ fields: [String: JSONValue], done: @escaping (Result<JSONValue, any Error>) -> Void) throws {
        if stopped { throw ClientError.stopped(reason: "the client is stopped") }
        guard queue.count < configuration.maxQueuedCommands || isLive else { throw ClientError.queueFull }
        nextCommand += 1
        let id = "c\(nextCommand)"
        var object = fields
        object["id"] = .string(id)
        object["type"] = .string(type)
        let frame = String(decoding: (try? JSONValue.object(object).serialized()) ?? [], as: UTF8.self)
        waiters[id] = done
        queue.append(Outgoing(id: id, frame: frame, resend: ClientCommandKind(rawValue: type).map { $0.isSafeToResend(fields) } ?? true))
        pumpSoon()
    }

    private func pumpSoon() {
        guard isLive, !isPumping else { return }
        isPumping = true
        Task { await self.pump() }
    }

    /// Sends queued commands one at a time, in order, while the connection is live.
    private func pump() async {
        while isLive, let transport, !queue.isEmpty {
            let next = queue.removeFirst()
            if waiters[next.id] != nil { inFlight.append(next) }  // acks have no waiter and are not retried
            do { try await transport.send(text: next.frame) } catch { break }  // the reader sees the end and requeues
        }
        isPumping = false
    }

    // MARK: Events

    private func nextEvent() async -> ClientEvent? {
        if let offset = handling {
            handling = nil
            acknowledge(offset)
        }
        if buffered.isEmpty {
            if stopped { return nil }
            return await withCheckedContinuation { waiter in eventWaiter = waiter }
        }
        let next = buffered.removeFirst()
        handling = next.offset
        return next.event
    }

    private func emit(_ event: ClientEvent, offset: Int64? = nil) {
        if let waiter = eventWaiter {
            eventWaiter = nil
            handling = offset
            waiter.resume(returning: event)
        } else {
            buffered.append((event, offset))
        }
    }

    private func acknowledge(_ offset: Int64) {
        configuration.offsetStore.save(offset)
        guard isLive else { return }  // the next connection resumes from the store instead
        nextCommand += 1
        let ack = JSONValue.object(["id": .string("k\(nextCommand)"), "type": .string(ClientCommandKind.ack.rawValue), "offset": .int(offset)])
        queue.append(Outgoing(id: "k\(nextCommand)", frame: String(decoding: (try? ack.serialized()) ?? [], as: UTF8.self)))
        pumpSoon()
    }

    // MARK: Connection loop

    private func run() async {
        var attempt = 0
        var rejections = 0
        var tokenRequest = TokenRequest.initial
        let policy = configuration.reconnect
        guard let base = WebSocketURL(configuration.url) else {
            return await stop(.refused(.connectFailed("not a ws:// or wss:// URL: \(configuration.url)")))
        }
        while !stopped {
            emit(.connection(.connecting))
            let token: String
            do {
                token = try await configuration.tokenProvider(tokenRequest)
            } catch {
                return await stop(.authenticationFailed("the token provider failed: \(error)"))
            }
            if stopped { return }
            var query = [("token", token)]
            let resumeFrom = highestReceived
            if let resumeFrom { query.append(("offset", String(resumeFrom))) }
            let transport = configuration.transport()
            self.transport = transport
            expectingResume = resumeFrom != nil
            var welcomed = false
            let ending: TransportError
            do {
                try await transport.connect(to: base.appendingQuery(query))
                ending = await read(transport, welcomed: &welcomed)
            } catch {
                ending = error as? TransportError ?? .connectFailed("\(error)")
            }
            connectionEnded()
            if stopped { return }
            if welcomed { attempt = 0; rejections = 0 }
            let delay: Double
            switch ReconnectPolicy.action(for: ending) {
            case .stop:
                return await stop(.refused(ending))
            case .refreshToken:
                rejections += 1
                if rejections > policy.maxTokenRefreshes {
                    return await stop(.authenticationFailed("the gateway rejected \(rejections) tokens in a row"))
                }
                tokenRequest = .rejected
                // The first refresh is immediate (an expired token is the usual cause); repeated ones back off.
                delay = rejections == 1 ? 0 : policy.delay(attempt: attempt, unitRandom: configuration.random())
                if rejections > 1 { attempt += 1 }
            case .soon:
                tokenRequest = .reconnect
                delay = policy.soonDelay
            case .backoff:
                tokenRequest = .reconnect
                delay = policy.delay(attempt: attempt, unitRandom: configuration.random())
                attempt += 1
            }
            emit(.connection(.waitingToReconnect(retryIn: delay, reason: ending)))
            do { try await configuration.clock.sleep(seconds: delay) } catch { return }
        }
    }

    /// Reads frames until the connection ends; returns how it ended.
    private func read(_ transport: any WebSocketTransport, welcomed: inout Bool) async -> TransportError {
        while true {
            let text: String
            do {
                text = try await transport.receive()
            } catch {
                return error as? TransportError ?? .closed(code: nil)
            }
            guard case .object(let frame)? = try? JSONValue.parse(Array(text.utf8)), let type = frame["type"]?.stringValue else {
                continue  // the gateway sends only JSON objects; ignore anything else rather than fail the session
            }
            if type == "welcome" { welcomed = true }
            handle(type: type, frame: frame)
        }
    }

    private func handle(type: String, frame: [String: JSONValue]) {
        let data = frame["data"] ?? .null
        switch type {
        case "reply":
            guard let id = frame["id"]?.stringValue else { return }
            inFlight.removeAll { $0.id == id }
            guard let waiter = waiters.removeValue(forKey: id) else { return }
            if frame["ok"] == .bool(true) {
                waiter(.success(frame["result"] ?? .object([:])))
            } else {
                let error = frame["error"]
                waiter(.failure(ClientError.server(
                    code: error?["code"]?.stringValue ?? "internal_error", message: error?["message"]?.stringValue ?? "")))
            }
        case "welcome":
            guard let welcome: WelcomeData = data.decoded() else { return }
            serverLatest = welcome.latestOffset
            serverClock = ServerClock(serverTime: welcome.serverTime, receivedAt: configuration.clock.nowMilliseconds())
            if highestReceived == nil {
                // A first connection starts at the live end: that is the resume point from now on, so an event lost
                // with this connection is replayed by the next one instead of skipped by another fresh start.
                highestReceived = welcome.latestOffset
                configuration.offsetStore.save(welcome.latestOffset)
            }
            emit(.connection(.connected(userId: welcome.userId, deviceId: welcome.deviceId, latestOffset: welcome.latestOffset)))
            if !expectingResume { goLive() }
        case "resume":
            if let resume: ResumeData = data.decoded(), !resume.recovered {
                if resume.requestedOffset > serverLatest { moveBack(to: serverLatest) }
                emit(.resync(resume))
            }
            goLive()
        default:
            let offset = frame["offset"]?.int64Value
            if let offset {
                if let highest = highestReceived, offset <= highest { return }  // replayed twice: already delivered
                highestReceived = offset
            }
            emit(ClientEvent(type: type, data: data), offset: offset)
        }
    }

    /// Our offset is ahead of the server's log (its store was restored from an older backup, or ours came from
    /// another server): the server continues after `latest`, so we do too. Offsets above it belong to the old log
    /// and are neither acknowledged nor used to drop the new log's events as replays.
    private func moveBack(to latest: Int64) {
        highestReceived = latest
        configuration.offsetStore.save(latest)
        if let offset = handling, offset > latest { handling = nil }
        buffered = buffered.map { entry in
            guard let offset = entry.offset, offset > latest else { return entry }
            return (entry.event, nil)
        }
    }

    /// After welcome (and resume): commands that waited go out, in order, before any new one.
    private func goLive() {
        isLive = true
        pumpSoon()
    }

    private func connectionEnded() {
        isLive = false
        transport = nil
        // Sent but unanswered: send again, first, in their original order (send_message is idempotent by
        // clientMessageId; reads are harmless). Commands that would act twice fail instead: their outcome is unknown.
        for lost in inFlight where !lost.resend {
            waiters.removeValue(forKey: lost.id)?(.failure(ClientError.connectionLost(
                "the connection dropped before the reply; it may or may not have been done")))
        }
        queue.insert(contentsOf: inFlight.filter(\.resend), at: 0)
        inFlight.removeAll()
    }

    private func stop(_ reason: ClientError) async {
        guard !stopped else { return }
        stopped = true
        isLive = false
        let transport = self.transport
        self.transport = nil
        await transport?.close(code: 1000)
        runTask?.cancel()
        for waiter in waiters.values { waiter(.failure(reason)) }
        waiters.removeAll()
        queue.removeAll()
        inFlight.removeAll()
        emit(.connection(.stopped(reason)))
        if buffered.isEmpty, let waiter = eventWaiter {  // the consumer is waiting: the stream ends now
            eventWaiter = nil
            waiter.resume(returning: nil)
        }
    }
}

extension JSONValue {
    /// Decodes a wire shape from this value (through the JSON bytes, so field names are exactly the wire's).
    func decoded<T: Decodable>(as type: T.Type = T.self) -> T? {
        guard let bytes = try? serialized() else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(bytes))
    }

    /// The member `key` of an object, nil otherwise.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }
}
