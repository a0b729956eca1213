import ArgumentParser
import SwitchboardConfig

/// `--config` and `--storage-path`, shared by every command that reads the configuration.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "Configuration file (TOML, see config/switchboard.example.toml).")
    var config: String?
    @Option(name: .customLong("storage-path"), help: "SQLite database file (overrides storage.path).")
    var storagePath: String?

    /// The embedded defaults, overlaid by the file, by `--storage-path` and then by `overrides`; validated.
    /// Exits with status 2 (after printing the error) on an invalid configuration.
    func load(_ overrides: (inout SwitchboardConfiguration) throws -> Void = { _ in }) throws -> SwitchboardConfiguration {
        var configuration = SwitchboardConfiguration()
        do {
            if let config { configuration = try SwitchboardConfiguration.load(path: config) }
            if let storagePath {
                configuration.storage.path = storagePath
                configuration.explicitlySetKeys.insert("storage.path")
            }
            try overrides(&configuration)
            if configuration.server.echo { configuration.applyEchoDefaults() }
            try configuration.validate()
        } catch let error as ConfigError {
            printError("switchboard: invalid configuration: \(error)")
            throw ExitStatus.usage
        }
        return configuration
    }
}
