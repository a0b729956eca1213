import Foundation
import Gateway
import Logging
import Redis
import Synchronization

/// The cluster bus over Redis publish/subscribe (docs/CLUSTER.md, "Cross-node delivery"): one shared channel,
/// `sb:notices`, carrying `<offset> <user>` per user whose log grew, `*` (every node re-reads its connected users'
/// logs once) when the publisher's queue overflowed, `p <connected> <away> <node bytes> <node><user>` per user whose
/// device count on a node changed or is repeated (presence, docs/CLUSTER.md), `c <node bytes> <node><user>` per user
/// whose records (devices, contacts, push tokens, …) a node changed, and a heartbeat from every node each second. A
/// node of an older build reads a presence or change notice as it reads a heartbeat: it ignores it.
///
/// Two threads, each with its own blocking hiredis connection, so neither the hub nor an event loop ever waits on
/// Redis: the publisher drains a queue coalesced per user (the latest offset wins), keeping what it could not send
/// for after it reconnects; the subscriber reads the channel and hands every notice to the hub. A
/// subscriber that hears nothing (not even a heartbeat) for `silenceMs` treats the link as dead and reconnects; it
/// signals `lost` on each break and `restored` once subscribed again.
public final class RedisClusterBus: ClusterBus {
    public static let channel = "sb:notices"
    static let heartbeat: [UInt8] = Array("hb".utf8)
    static let resync: [UInt8] = Array("*".utf8)

    private let endpoint: RedisEndpoint
    private let nodeId: String
    private let logger: Logger
    private let heartbeatMs: Int
    private let silenceMs: Int
    private let retryMs: UInt32
    /// Users with new events not yet published (or, after an overflow, `resync` instead of them), and the condition
    /// the publisher waits on.
    private let outbox = Mutex<(latest: [String: Int64], resync: Bool, stopped: Bool)>(([:], false, false))
    /// Presence counts not yet published, per user (the latest counts win; bounded by the users connected here).
    private let presenceOutbox = Mutex<[String: (connected: Int, away: Int)]>([:])
    /// Users whose records changed here, not yet published.
    private let changeOutbox = Mutex<Set<String>>([])
    private let wake = DispatchSemaphore(value: 0)
    private let subscriber = Mutex<(socket: Int32, stopped: Bool)>((-1, false))
    private let signals = SignalReceiver()
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    /// Users waiting to be published at most; beyond it their notices are replaced by one `*` (every node re-reads all
    /// its connected users' logs once), which costs reads, never events.
    static let maxQueuedUsers = 100_000

    /// `nodeId` names this node in presence notices (the configured `node_id`); it must differ between nodes.
    public init(endpoint: RedisEndpoint, nodeId: String, logger: Logger, heartbeatMs: Int = 1000, silenceMs: Int = 3500, retryMs: UInt32 = 200) {
        self.endpoint = endpoint
        self.nodeId = nodeId
        self.logger = logger
        self.heartbeatMs = heartbeatMs
        self.silenceMs = silenceMs
        self.retryMs = retryMs
    }

    public func start(signals: @escaping @Sendable (ClusterSignal) -> Void) {
        self.signals.set(signals)
        started.store(true, ordering: .sequentiallyConsistent)
        Thread.detachNewThread { [self] in publishLoop(); finished.signal() }
        Thread.detachNewThread { [self] in subscribeLoop(); finished.signal() }
    }

    public func announce(userId: String, offset: Int64) {
        outbox.withLock { box in
            if box.resync { return }
            if box.latest[userId] == nil && box.latest.count >= Self.maxQueuedUsers {
                box.latest = [:]
                box.resync = true
            } else {
                box.latest[userId] = max(box.latest[userId] ?? 0, offset)
            }
        }
        wake.signal()
    }

    public func announcePresence(userId: String, connected: Int, away: Int) {
        presenceOutbox.withLock { $0[userId] = (connected, away) }
        wake.signal()
    }

    public func announceChange(userId: String) {
        changeOutbox.withLock { _ = $0.insert(userId) }
        wake.signal()
    }

    public func stop() {
        signals.set(nil)
        outbox.withLock { $0.stopped = true }
        wake.signal()
        subscriber.withLock { state in
            state.stopped = true
            if state.socket >= 0 { shutdown(state.socket, Int32(SHUT_RDWR)) }   // wakes the blocked read
        }
        guard started.load(ordering: .sequentiallyConsistent) else { return }
        finished.wait()
        finished.wait()
    }

    private func signal(_ value: ClusterSignal) { signals(value) }

    // MARK: Publisher

    private func publishLoop() {
        var connection: RedisConnection?
        var lastHeartbeat = ContinuousClock.now
        while true {
            _ = wake.wait(timeout: .now() + .milliseconds(heartbeatMs))
            let (batch, resync, stopped) = outbox.withLock { box in
                defer { (box.latest, box.resync) = ([:], false) }
                return (box.latest, box.resync, box.stopped)
            }
            let presence = presenceOutbox.withLock { box in defer { box = [:] }; return box }
            let changes = changeOutbox.withLock { box in defer { box = [] }; return box }
            // Stopping: what is still queued is sent once more (other nodes' devices would otherwise wait for the
            // users' next events), without retrying.
            if stopped && batch.isEmpty && presence.isEmpty && changes.isEmpty && !resync { return }
            do {
                if connection == nil { connection = try endpoint.connect(timeoutMs: 2000) }
                var messages = resync ? [Self.resync] : []
                messages += batch.map { Array("\($0.value) \($0.key)".utf8) }
                messages += presence.map { Self.presenceNotice(node: nodeId, userId: $0.key, connected: $0.value.connected, away: $0.value.away) }
                messages += changes.map { Self.changeNotice(node: nodeId, userId: $0) }
                let beat = ContinuousClock.now - lastHeartbeat >= .milliseconds(heartbeatMs)
                if beat { messages.append(Self.heartbeat) }
                // One round trip for the whole batch (in slices, so one write stays a few hundred kilobytes at most).
                let publish = [Array("PUBLISH".utf8), Array(Self.channel.utf8)]
                for start in stride(from: 0, to: messages.count, by: 4096) {
                    try connection?.pipeline(messages[start..<min(start + 4096, messages.count)].map { publish + [$0] })
                }
                if beat { lastHeartbeat = ContinuousClock.now }
                if stopped { return }
            } catch {
                if stopped { return }
                // Nothing is lost: the batch goes back (merged with newer offsets) and is sent after reconnecting.
                outbox.withLock { box in
                    box.resync = box.resync || resync
                    if !box.resync {
                        for (userId, offset) in batch { box.latest[userId] = max(box.latest[userId] ?? 0, offset) }
                    }
                }
                presenceOutbox.withLock { box in box.merge(presence) { newer, _ in newer } }
                changeOutbox.withLock { $0.formUnion(changes) }
                if connection != nil { logger.warning("cluster bus: cannot publish to Redis: \(error)") }
                connection = nil
                usleep(retryMs * 1000)
            }
        }
    }

    // MARK: Subscriber

    private func subscribeLoop() {
        var failures = 0
        while !subscriber.withLock({ $0.stopped }) {
            do {
                let connection = try endpoint.connect(timeoutMs: 2000, readTimeoutMs: silenceMs)
                let registered = subscriber.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.socket = connection.fileDescriptor
                    return true
                }
                guard registered else { return }
                defer {
                    subscriber.withLock { $0.socket = -1 }
                    connection.close()
                }
                try connection.subscribe([Self.channel])
                if failures > 0 { logger.notice("cluster bus: subscribed to Redis again") }
                failures = 0
                signal(.restored)
                while true {
                    let (_, message) = try connection.nextMessage()
                    if message == Self.resync { signal(.restored); continue }
                    if let p = Self.parsePresence(message) {
                        if p.node != nodeId { signal(.presence(userId: p.userId, node: p.node, connected: p.connected, away: p.away)) }
                        continue
                    }
                    if let c = Self.parseChange(message) {
                        if c.node != nodeId { signal(.changed(userId: c.userId)) }
                        continue
                    }
                    guard let notice = Self.parse(message) else { continue }   // a heartbeat
                    signal(.advanced(userId: notice.userId, offset: notice.offset))
                }
            } catch {
                if subscriber.withLock({ $0.stopped }) { return }
                if failures == 0 { logger.warning("cluster bus: Redis subscription lost, re-reading logs until it is back: \(error)") }
                failures += 1
                signal(.lost)
                usleep(retryMs * 1000)
            }
        }
    }

    /// `p <connected> <away> <node bytes> <node><user>`: the node's name is length-prefixed, so neither name is limited
    /// in what it holds.
    static func presenceNotice(node: String, userId: String, connected: Int, away: Int) -> [UInt8] {
        Array("p \(connected) \(away) \(node.utf8.count) ".utf8) + Array(node.utf8) + Array(userId.utf8)
    }

    /// A presence notice, or nil for anything else.
    static func parsePresence(_ message: [UInt8]) -> (node: String, userId: String, connected: Int, away: Int)? {
        guard message.starts(with: Array("p ".utf8)) else { return nil }
        let fields = message.dropFirst(2).split(separator: UInt8(ascii: " "), maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4,
              let connected = Int(String(decoding: fields[0], as: UTF8.self)), connected >= 0,
              let away = Int(String(decoding: fields[1], as: UTF8.self)), away >= 0, away <= connected,
              let nodeBytes = Int(String(decoding: fields[2], as: UTF8.self)), nodeBytes > 0,
              fields[3].count > nodeBytes else { return nil }
        let rest = fields[3]
        let split = rest.index(rest.startIndex, offsetBy: nodeBytes)
        return (String(decoding: rest[..<split], as: UTF8.self), String(decoding: rest[split...], as: UTF8.self), connected, away)
    }

    /// `c <node bytes> <node><user>`: `user`'s records changed on `node`.
    static func changeNotice(node: String, userId: String) -> [UInt8] {
        Array("c \(node.utf8.count) ".utf8) + Array(node.utf8) + Array(userId.utf8)
    }

    /// A change notice, or nil for anything else.
    static func parseChange(_ message: [UInt8]) -> (node: String, userId: String)? {
        guard message.starts(with: Array("c ".utf8)) else { return nil }
        let fields = message.dropFirst(2).split(separator: UInt8(ascii: " "), maxSplits: 1, omittingEmptySubsequences: false)
        guard fields.count == 2, let nodeBytes = Int(String(decoding: fields[0], as: UTF8.self)), nodeBytes > 0,
              fields[1].count > nodeBytes else { return nil }
        let rest = fields[1]
        let split = rest.index(rest.startIndex, offsetBy: nodeBytes)
        return (String(decoding: rest[..<split], as: UTF8.self), String(decoding: rest[split...], as: UTF8.self))
    }

    /// `<offset> <user>`; nil for anything else (heartbeats, presence).
    static func parse(_ message: [UInt8]) -> (userId: String, offset: Int64)? {
        guard let space = message.firstIndex(of: UInt8(ascii: " ")),
              let offset = Int64(String(decoding: message[..<space], as: UTF8.self)) else { return nil }
        let userId = String(decoding: message[(space + 1)...], as: UTF8.self)
        return userId.isEmpty ? nil : (userId, offset)
    }
}
