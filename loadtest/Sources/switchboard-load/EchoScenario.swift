import ArgumentParser

/// `echo`: every connection keeps `depth` messages of `size` bytes in flight against an echo endpoint and verifies
/// each reply byte for byte and in order (see `EchoSession`). Loss, duplication and corruption are counted, reported
/// and make the run exit non-zero.
struct EchoScenario: Scenario {
    /// Payload bytes per message (≥ 8: the first 8 carry the sequence number).
    let size: Int
    /// Messages in flight per connection.
    let depth: Int

    var name: String { "echo" }
    var parameters: [String: String] { ["size": String(size), "depth": String(depth)] }
    var maxMessageBytes: Int { max(size, 1 << 20) }

    func makeSession(id: Int, driver: LoopDriver) -> any ConnectionSession {
        EchoSession(driver: driver, size: size, depth: depth)
    }
}

/// The `echo` subcommand.
struct EchoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo",
        abstract: "Round-trip binary messages through an echo endpoint; verify every byte.",
        discussion: """
            Each of --connections connections sends --size byte binary messages, keeping --depth of them in flight, \
            for --duration seconds after the ramp; then stops sending and waits (up to --drain-timeout) for the \
            replies still in flight. Every reply is checked byte for byte and in order: lost, duplicated and \
            corrupted echoes are counted and reported, and the exit status is 1 when there is any. Works with \
            --deflate (permessage-deflate) and wss:// URLs. Run against `switchboard serve --echo`.
            """)

    @OptionGroup var options: CommonOptions

    @Option(help: "Payload bytes per message (8 … 16777216; the first 8 carry a sequence number).")
    var size = 20

    @Option(help: "Messages in flight per connection (1 … 10000).")
    var depth = 1

    func validate() throws {
        guard (EchoPayload.minimumSize...16 * 1024 * 1024).contains(size) else {
            throw ValidationError("--size must be between \(EchoPayload.minimumSize) and 16777216 bytes")
        }
        guard (1...10_000).contains(depth) else { throw ValidationError("--depth must be between 1 and 10000") }
    }

    func run() throws {
        try LoadRun(options: options, scenario: EchoScenario(size: size, depth: depth)).execute()
    }
}
