import ArgumentParser

extension CommonOptions {
    /// These options with the drain phase long enough for approval timeouts and presence grace periods.
    func withDrain(atLeast seconds: Double) -> CommonOptions {
        var copy = self
        copy.drainTimeout = max(drainTimeout, seconds)
        return copy
    }
}

/// Runs a gateway scenario: builds the environment (exit 64 on bad options) and hands over to `LoadRun`.
enum GatewayRun {
    static func execute(_ name: String, options: CommonOptions, gateway: GatewayOptions, components: [GatewayComponent],
                        parameters: [String: String], minimumDrain: Double) throws {
        let environment: GatewayEnvironment
        do {
            environment = try GatewayEnvironment(options: gateway, common: options)
        } catch let error as ValidationError {
            throw ValidationError(error.message)
        } catch {
            throw ValidationError("\(error)")
        }
        var common = options.withDrain(atLeast: minimumDrain)
        common.connections = components.reduce(0) { $0 + $1.connections }
        let scenario = GatewayScenario(name: name, components: components, environment: environment, parameters: parameters)
        try LoadRun(options: common, scenario: scenario).execute()
    }
}
