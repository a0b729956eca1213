import ArgumentParser

/// `connect`: ramp N connections at `--rate`, hold them for `--duration`, close them. Measures upgrade latency
/// (TCP connect start → 101 parsed) and reports failed attempts by kind.
struct ConnectScenario: Scenario {
    var name: String { "connect" }
    var parameters: [String: String] { [:] }

    func makeSession(id: Int, driver: LoopDriver) -> any ConnectionSession {
        HoldSession(driver: driver)
    }
}

/// The `connect` subcommand.
struct ConnectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Ramp connections at a rate, hold them, and measure upgrade latency.",
        discussion: """
            Opens --connections WebSockets at --rate connects per second, holds them for --duration seconds after \
            the last attempt finished, then closes them with a close handshake. Upgrade latency runs from the start \
            of the TCP connect to the parsed 101 response. Failed attempts are counted by kind (connect_refused, \
            handshake_timeout, http_503, …); the exit status is 1 when any attempt failed.
            """)

    @OptionGroup var options: CommonOptions

    func run() throws {
        try LoadRun(options: options, scenario: ConnectScenario()).execute()
    }
}
