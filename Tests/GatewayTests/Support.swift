import FoundationEssentials
import Gateway
import GatewayProtocol
import GatewayTestSupport
import Synchronization

/// A started hub on `store` and `clock`, a member of `bus` when one is given.
func startedHub(_ store: GatewayStore, _ clock: ManualScheduler, settings: GatewaySettings = .init(),
                bus: InMemoryClusterBus? = nil) throws -> GatewayHub {
    let hub = GatewayHub(store: store, scheduler: clock, clock: clock, settings: settings)
    hub.clusterBus = bus?.member()
    try hub.start()
    return hub
}

/// A connected device that records every frame the hub sends it.
final class FakeClient: GatewayClient, @unchecked Sendable {
    // @unchecked: tests drive the hub on one thread.
    let userId: String
    let deviceId: String
    let clientType: String
    var frames: [[String: Any]] = []
    var closed: UInt16?

    init(_ userId: String, _ deviceId: String, _ clientType: String) {
        self.userId = userId; self.deviceId = deviceId; self.clientType = clientType
    }

    func send(_ frame: [UInt8]) {
        frames.append(parseJSONObject(frame))
    }

    func close(code: UInt16, reason: String) { closed = code }

    /// Frames of a type (events) or replies.
    func events(_ type: String) -> [[String: Any]] { frames.filter { $0["type"] as? String == type } }
    func reply(_ id: String) -> [String: Any]? { frames.last { $0["type"] as? String == "reply" && $0["id"] as? String == id } }
    func errorCode(_ id: String) -> String? { ((reply(id)?["error"]) as? [String: Any])?["code"] as? String }
    func clear() { frames = [] }
}

/// A tiny JSON reader for assertions (FoundationEssentials has no JSONSerialization).
func parseJSONObject(_ bytes: [UInt8]) -> [String: Any] {
    (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))).map(unwrap) as? [String: Any] ?? [:]
}

func unwrap(_ value: JSONValue) -> Any {
    switch value {
    case .null: return NSNullMarker()
    case .bool(let b): return b
    case .int(let i): return i
    case .number(let d): return d
    case .string(let s): return s
    case .array(let a): return a.map(unwrap)
    case .object(let o): return o.mapValues(unwrap)
    }
}

struct NSNullMarker {}

func data(_ frame: [String: Any]) -> [String: Any] { frame["data"] as? [String: Any] ?? [:] }

/// A hub on a manual clock with an in-memory store, plus helpers to drive it like clients and a backend would.
final class HubFixture {
    let scheduler = ManualScheduler()
    let store: InMemoryGatewayStore
    var hub: GatewayHub

    init(store: InMemoryGatewayStore = InMemoryGatewayStore(), settings: GatewaySettings = .init()) throws {
        self.store = store
        hub = GatewayHub(store: store, scheduler: scheduler, clock: scheduler, settings: settings)
        try hub.start()
    }

    func command(_ client: FakeClient, _ json: String) {
        hub.handle(Array(json.utf8), from: client)
    }

    func connect(_ userId: String, _ deviceId: String, _ type: String = "ios", resumeAfter: Int64? = nil) -> FakeClient {
        let client = FakeClient(userId, deviceId, type)
        hub.connect(client, resumeAfter: resumeAfter)
        return client
    }

    func contacts(_ a: String, _ b: String) {
        for id in [a, b] where hub.user(id) == nil { hub.upsertUser(id: id, displayName: nil) { _ in } }
        hub.addContact(a, b) { result in precondition((try? result.get()) != nil) }
    }

    func session(_ userId: String, id: String = "s1") -> String {
        var created: String?
        hub.createSession(id: id, userId: userId, title: "run") { created = try? $0.get().sessionId }
        return created!
    }

    func approval(session: String, timeoutMs: Int64? = nil, key: String? = nil) -> ApprovalData {
        var result: ApprovalData?
        hub.requestApproval(sessionId: session, toolName: "shell", summary: "rm -rf build", details: .object(["cwd": .string("/tmp")]),
                            timeoutMs: timeoutMs, idempotencyKey: key) { result = try? $0.get() }
        return result!
    }
}

/// An in-memory store whose commits complete only on `flush()`, so tests can issue concurrent commands while
/// earlier writes are still "on disk".
final class DeferredStore: GatewayStore, @unchecked Sendable {
    // @unchecked: tests drive it from one thread.
    let inner = InMemoryGatewayStore()
    private var queued: [([StoreWrite], (Result<StoreReceipt, Error>) -> Void)] = []

    /// Queues each batch on its own; `completion` runs once every batch of the call was flushed.
    /// Batches handed over so far.
    private(set) var commits = 0

    func commit(batches: [[StoreWrite]], completion: @escaping @Sendable ([Result<StoreReceipt, Error>]) -> Void) {
        guard !batches.isEmpty else { return completion([]) }
        commits += batches.count
        var results = [Result<StoreReceipt, Error>?](repeating: nil, count: batches.count)
        for (index, writes) in batches.enumerated() {
            queued.append((writes, { result in
                results[index] = result
                if !results.contains(where: { $0 == nil }) { completion(results.map { $0! }) }
            }))
        }
    }

    /// The batches handed over and not yet flushed, oldest first.
    var pending: [[StoreWrite]] { queued.map(\.0) }

    /// Writes the queued batches one at a time, each completion right after its batch.
    func flush() {
        while !queued.isEmpty {
            let (writes, completion) = queued.removeFirst()
            let result = Mutex<Result<StoreReceipt, Error>?>(nil)
            inner.commit(batches: [writes]) { results in result.withLock { $0 = results[0] } }
            completion(result.withLock { $0! })
        }
    }

    /// Writes everything queued as one job (as the SQL stores' writer takes every job queued since its last commit),
    /// then runs the completions in order; repeats with what they queued (retries).
    func flushInRounds() {
        while !queued.isEmpty {
            let round = queued
            queued = []
            let results = Mutex<[Result<StoreReceipt, Error>]>([])
            inner.commit(batches: round.map(\.0)) { outcomes in results.withLock { $0 = outcomes } }
            for ((_, completion), result) in zip(round, results.withLock { $0 }) { completion(result) }
        }
    }

    func reserveIds(_ sequence: IdSequence, count: Int, above: Int64) throws -> [Int64] {
        try inner.reserveIds(sequence, count: count, above: above)
    }
    func loadSnapshot() throws -> GatewaySnapshot { try inner.loadSnapshot() }
    func userEntry(id: String) throws -> UserEntry { try inner.userEntry(id: id) }
    func userId(hexCode: String) throws -> String? { try inner.userId(hexCode: hexCode) }
    func connectCode(code: String) throws -> ConnectCodeRecord? { try inner.connectCode(code: code) }
    func invite(code: String) throws -> InviteRecord? { try inner.invite(code: code) }
    func latestInvite(groupId: String, recipient: String) throws -> InviteRecord? { try inner.latestInvite(groupId: groupId, recipient: recipient) }
    func groupMemberIds(groupId: String) throws -> [String] { try inner.groupMemberIds(groupId: groupId) }
    func phoneOwners(phones: [String], hashes: [String]) throws -> PhoneOwners { try inner.phoneOwners(phones: phones, hashes: hashes) }
    func device(tokenDigest: String) throws -> DeviceRecord? { try inner.device(tokenDigest: tokenDigest) }
    func deviceOwners(deviceId: String) throws -> [String] { try inner.deviceOwners(deviceId: deviceId) }
    func events(userId: String, after: Int64, limit: Int) throws -> [StoredEvent] { try inner.events(userId: userId, after: after, limit: limit) }
    func oldestOffset(userId: String) throws -> Int64? { try inner.oldestOffset(userId: userId) }
    func messages(between a: String, and b: String, before: Int64?, limit: Int) throws -> [MessageRecord] {
        try inner.messages(between: a, and: b, before: before, limit: limit)
    }
    func unreadCounts(userId: String) throws -> [String: Int] { try inner.unreadCounts(userId: userId) }
    func session(id: String) throws -> SessionRecord? { try inner.session(id: id) }
    func approval(id: String) throws -> ApprovalRecord? { try inner.approval(id: id) }
    func pendingApprovals(dueBy: Int64, limit: Int) throws -> [ApprovalRecord] { try inner.pendingApprovals(dueBy: dueBy, limit: limit) }
    /// Idempotency keys looked up so far.
    private(set) var idempotencyReads = 0
    func idempotentResponse(scope: String, key: String) throws -> IdempotencyRecord? {
        idempotencyReads += 1
        return try inner.idempotentResponse(scope: scope, key: key)
    }
    func pruneEvents(before: Int64, keepLatest: Int) throws -> Int { try inner.pruneEvents(before: before, keepLatest: keepLatest) }
    func duePushJobs(now: Int64, limit: Int) throws -> [PushJobRecord] { try inner.duePushJobs(now: now, limit: limit) }
    func pushJob(id: Int64) throws -> PushJobRecord? { try inner.pushJob(id: id) }
    func claimPushJobs(claimant: String, now: Int64, leaseMs: Int64, limit: Int) throws -> [PushJobRecord] {
        try inner.claimPushJobs(claimant: claimant, now: now, leaseMs: leaseMs, limit: limit)
    }
}
