import ArgumentParser

/// `switchboard-load`: the load generator for Switchboard, a product for sizing deployments.
///
/// Every scenario is a subcommand; the server is a black box reached over the network. Scenario registry: add a
/// subcommand to `subcommands` below and name it in the `discussion` text, which is what `--help` lists.
@main
struct SwitchboardLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard-load",
        abstract: "Load generator for Switchboard WebSocket servers.",
        discussion: """
            Runs a scenario against a server, prints a progress line per second on stderr and a latency/throughput \
            table at the end (optionally JSON and HTML reports). Exit status: 0 when every connection and message \
            succeeded, 1 when any failed (failures are listed by kind), 64 for bad options, 70 when the machine's \
            limits cannot support the run. Point it only at servers you own.
            Echo endpoint scenarios: connect, idle, echo. Gateway scenarios (against /v1/ws and the server API, \
            with --jwt-secret and --api-key): approvals, handoff, messages, presence, fanout, fairness, reach, mixed, and clients \
            (the SwitchboardClient library itself, with connections cut on purpose). In process: decode (command \
            reading microbenchmark).
            Example: switchboard-load echo --url ws://127.0.0.1:7420/ --connections 100 --size 20 --duration 10
            """,
        subcommands: [
            ConnectCommand.self, IdleCommand.self, EchoCommand.self, ApprovalsCommand.self, HandoffCommand.self,
            FairnessCommand.self,
            MessagesCommand.self, PresenceCommand.self, FanoutCommand.self, ReachCommand.self, MixedCommand.self,
            ClientsCommand.self,
            DecodeCommand.self
        ])
}
