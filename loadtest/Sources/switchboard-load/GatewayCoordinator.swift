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
            case .approvals(let o):
                workload = ApprovalsWorkload(context: context, connections: component.connections, options: o)
            case .handoff(let o):
                workload = HandoffWorkload(context: context, connections: component.connections, options: o)
            case .messages(let o):
                workload = MessagesWorkload(context: context, connections: component.connections, options: o)
            case .presence(let o):
                workload = PresenceWorkload(context: context, connections: component.connections, options: o)
            case .fanout(let o):
                workload = FanoutWorkload(context: context, connections: component.connections, options: o)
            case .fairness(let o):
                workload = FairnessWorkload(context: context, connections: component.connections, options: o)
            case .reach(let o):
                workload = ReachWorkload(context: context, connections: component.connections, options: o)
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
