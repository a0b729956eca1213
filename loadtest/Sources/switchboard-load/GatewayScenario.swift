import EventLoop
import Glibc
import JSON

/// One part of a gateway run: which workload and how many of the run's connections it owns.
struct GatewayComponent: Sendable {
    enum Kind: Sendable {
        case approvals(ApprovalsWorkload.Options)
        case handoff(HandoffWorkload.Options)
        case messages(MessagesWorkload.Options)
        case presence(PresenceWorkload.Options)
        case fanout(FanoutWorkload.Options)
    }

    var kind: Kind
    /// Planned connections (devices kept open for the whole run) this component owns.
    var connections: Int

    /// Short name used in user ids and metric names.
    var name: String {
        switch kind {
        case .approvals: "approvals"
        case .handoff: "handoff"
        case .messages: "messages"
        case .presence: "presence"
        case .fanout: "fanout"
        }
    }
}

/// The scenario behind every gateway subcommand: one or more components (one for `approvals`, several for
/// `mixed`), each owning a contiguous range of the connections. Setup calls run in `prepare` on the main thread;
/// traffic runs in a `GatewayCoordinator` on the (single) loop. Immutable and `Sendable`.
struct GatewayScenario: Scenario {
    let name: String
    let components: [GatewayComponent]
    let environment: GatewayEnvironment
    var parameters: [String: String]

    func makeSession(id: Int, driver: LoopDriver) -> any ConnectionSession {
        // The coordinator exists before the first connection (LoopDriver.begin creates it).
        (driver.coordinator as! GatewayCoordinator).makeSession(id: id)
    }

    func makeCoordinator(driver: LoopDriver) -> (any LoopCoordinator)? {
        GatewayCoordinator(driver: driver, scenario: self)
    }

    /// Creates the users, contacts and sessions every component needs, in dependency order (users first).
    func prepare() throws(LoadTestError) {
        let pool = BackendPool(
            address: environment.apiAddress, hostHeader: environment.apiHostHeader, apiKey: environment.apiKey,
            threads: environment.backendThreads)
        defer { pool.shutdown() }
        var batches: [[(method: String, path: String, body: String?)]] = [[], []]
        for component in components {
            let prefix = userPrefix(component)
            let steps: [[(method: String, path: String, body: String?)]]
            switch component.kind {
            case .approvals: steps = ApprovalsWorkload.setup(prefix: prefix, connections: component.connections)
            case .handoff: steps = HandoffWorkload.setup(prefix: prefix, connections: component.connections)
            case .messages(let o): steps = MessagesWorkload.setup(prefix: prefix, connections: component.connections, options: o)
            case .presence: steps = PresenceWorkload.setup(prefix: prefix, connections: component.connections)
            case .fanout: steps = []
            }
            for (index, step) in steps.enumerated() { batches[index].append(contentsOf: step) }
        }
        for batch in batches where !batch.isEmpty {
            if let failure = pool.runAll(batch) { throw .runtime("setup through the server API: \(failure)") }
        }
    }

    /// The user-id prefix of a component: unique per run.
    func userPrefix(_ component: GatewayComponent) -> String {
        "\(environment.runID)-\(component.name.prefix(3))"
    }
}

/// What each gateway workload implements; the coordinator forwards the driver's phases. Loop-confined.
protocol GatewayWorkload: AnyObject {
    /// The device for planned connection `index` (0-based within the component).
    func makeDevice(index: Int) -> GatewayDevice
    func startTraffic()
    func stopSending()
    var outstanding: Int { get }
    /// Counts what is still missing as lost.
    func finish()
}

/// Per-loop state of a gateway run: the backend pool and the components' workloads.
/// `@unchecked Sendable`: loop-confined; Sendable only so backend completions can hop back to the loop with it.
final class GatewayCoordinator: LoopCoordinator, @unchecked Sendable {
    let driver: LoopDriver
    let backend: BackendPool
    private var ranges: [(start: Int, count: Int, workload: GatewayWorkload)] = []

    init(driver: LoopDriver, scenario: GatewayScenario) {
        self.driver = driver
        let environment = scenario.environment
        backend = BackendPool(
            address: environment.apiAddress, hostHeader: environment.apiHostHeader, apiKey: environment.apiKey,
            threads: environment.backendThreads)
        var start = 0
        for component in scenario.components {
            let context = GatewayContext(
                driver: driver, backend: backend, environment: environment, prefix: scenario.userPrefix(component))
            let workload: GatewayWorkload
            switch component.kind {
            case .approvals(let o): workload = ApprovalsWorkload(context: context, connections: component.connections, options: o)
            case .handoff(let o): workload = HandoffWorkload(context: context, connections: component.connections, options: o)
            case .messages(let o): workload = MessagesWorkload(context: context, connections: component.connections, options: o)
            case .presence(let o): workload = PresenceWorkload(context: context, connections: component.connections, options: o)
            case .fanout(let o): workload = FanoutWorkload(context: context, connections: component.connections, options: o)
            }
            ranges.append((start, component.connections, workload))
            start += component.connections
        }
    }

    func makeSession(id: Int) -> any ConnectionSession {
        let range = ranges.first { id >= $0.start && id < $0.start + $0.count }!
        return range.workload.makeDevice(index: id - range.start)
    }

    func startTraffic() { for range in ranges { range.workload.startTraffic() } }
    func stopSending() { for range in ranges { range.workload.stopSending() } }
    var outstanding: Int { ranges.reduce(0) { $0 + $1.workload.outstanding } }

    func finish() {
        for range in ranges { range.workload.finish() }
        backend.shutdown()
    }
}

/// What a workload gets from its coordinator. Loop-confined.
struct GatewayContext: @unchecked Sendable {
    let driver: LoopDriver
    let backend: BackendPool
    let environment: GatewayEnvironment
    /// Prefix of this component's user ids.
    let prefix: String

    var loop: EventLoop { driver.loop }
    var minter: JWTMinter { environment.minter }

    /// A device on the planned or an extra connection.
    func device(handler: GatewayDeviceHandler, userId: String, deviceId: String, clientType: String, tag: Int,
                slot: Int, resumeOffset: Int64? = nil) -> GatewayDevice {
        GatewayDevice(driver: driver, handler: handler, minter: minter, basePath: environment.basePath, userId: userId,
                      deviceId: deviceId, clientType: clientType, tag: tag, slot: slot, resumeOffset: resumeOffset)
    }

    /// Queues a server-API call; `completion` runs on the loop with the result and the call's latency in µs.
    func call(_ method: String, _ path: String, body: @escaping @Sendable (UInt64) -> String?,
              completion: @escaping (Result<APIClient.Response, APIClient.Failure>, UInt64) -> Void) {
        let loop = self.loop
        let hop = UnsafeTransfer(completion)
        backend.submit(BackendPool.Job(method: method, path: path, body: body) { result, sentAt in
            let micros = MonotonicClock.microseconds(since: sentAt)
            loop.execute { hop.value(result, micros) }
        })
    }

    /// Records an API failure as an error kind ("api_409", "api_connect").
    func recordAPIFailure(_ result: Result<APIClient.Response, APIClient.Failure>) {
        switch result {
        case .success(let response): driver.recordError("api_\(response.status)")
        case .failure(let failure): driver.recordError(failure.kind)
        }
    }
}

/// Moves a loop-confined value into a `@Sendable` closure that only runs it back on the same loop.
struct UnsafeTransfer<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Paces events at a fixed rate from a start time: `due` says how many are owed by now (no catch-up cap: a stalled
/// loop sends a burst, which is what a real backend queue does too). Value type, loop-confined.
struct Pacer {
    let perSecond: Double
    private let startNs: UInt64
    private var emitted = 0

    init(perSecond: Double, startNs: UInt64 = MonotonicClock.nanoseconds()) {
        self.perSecond = perSecond
        self.startNs = startNs
    }

    /// Events owed at `nowNs` and not yet taken.
    mutating func take(nowNs: UInt64 = MonotonicClock.nanoseconds()) -> Int {
        let owed = Int(Double(nowNs &- startNs) / 1e9 * perSecond)
        defer { emitted = max(emitted, owed) }
        return max(0, owed - emitted)
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    func int(_ key: String) -> Int64? { self[key]?.int64Value }
    func string(_ key: String) -> String? { self[key]?.stringValue }
    func object(_ key: String) -> [String: JSONValue] {
        if case .object(let object)? = self[key] { return object }
        return [:]
    }
}

/// Wall-clock microseconds (CLOCK_REALTIME), for comparing with the server's Unix-millisecond timestamps.
func wallClockMicroseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
}
