import Foundation
import Glibc

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
            case .messages(let o):
                steps = MessagesWorkload.setup(prefix: prefix, connections: component.connections, options: o)
            case .presence: steps = PresenceWorkload.setup(prefix: prefix, connections: component.connections)
            case .fanout: steps = []
            case .fairness: steps = FairnessWorkload.setup(prefix: prefix)
            case .reach: steps = ReachWorkload.setup(prefix: prefix, connections: component.connections)
            }
            for (index, step) in steps.enumerated() { batches[index].append(contentsOf: step) }
        }
        for batch in batches where !batch.isEmpty {
            if let failure = pool.runAll(batch) { throw .runtime("setup through the server API: \(failure)") }
        }
        if let marker = environment.setupDone {
            guard FileManager.default.createFile(atPath: marker, contents: nil) else {
                throw .usage("--setup-done: cannot create \(marker)")
            }
            let deadline = Date().addingTimeInterval(600)
            while FileManager.default.fileExists(atPath: marker) {
                guard Date() < deadline else {
                    throw .runtime("--setup-done: \(marker) was not removed within 10 minutes")
                }
                usleep(50_000)  // polling a file another process removes
            }
        }
    }

    /// The user-id prefix of a component: unique per run.
    func userPrefix(_ component: GatewayComponent) -> String {
        "\(environment.runID)-\(component.name.prefix(3))"
    }
}
