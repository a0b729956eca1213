import ArgumentParser

/// `idle`: like `connect`, but the point is the server's memory per idle connection: with `--server-pid`, the report
/// leads with (peak RSS during the hold − RSS before the run) / connections opened.
struct IdleScenario: Scenario {
    var name: String { "idle" }
    var parameters: [String: String] { [:] }
    var reportsMemoryPerConnection: Bool { true }

    func makeSession(id: Int, driver: LoopDriver) -> any ConnectionSession {
        HoldSession(driver: driver)
    }
}

/// The `idle` subcommand.
struct IdleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "Hold idle connections and report the server's memory per connection.",
        discussion: """
            Opens --connections WebSockets at --rate per second and holds them, silent, for --duration seconds. \
            With --server-pid PID the report shows the server's RSS before the run, its peak while the connections \
            were held, and the difference divided by the connections opened (bytes per idle connection). \
            Give the server a second or two of --duration after the ramp so its RSS settles.
            """)

    @OptionGroup var options: CommonOptions

    func run() throws {
        try LoadRun(options: options, scenario: IdleScenario()).execute()
    }
}
