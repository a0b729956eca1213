import ArgumentParser
import Glibc

/// `switchboard`: the gateway's command line.
///
/// Exit status, the same for every subcommand: 0 success; 1 a runtime failure (cannot start: another instance holds
/// the database or the port, storage cannot be opened; or a command's work failed); 2 a usage error (unknown flag,
/// bad value) or an invalid configuration (file syntax, ranges, unreadable files, bad URLs, unusable addresses).
struct Switchboard: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A self-hosted realtime WebSocket gateway.",
        discussion: "Exit status: 0 success, 1 runtime failure (e.g. another instance is running), 2 bad command line or invalid configuration.",
        version: BuildInfo().text,
        subcommands: [Serve.self, CheckConfig.self, Version.self, Token.self, Keygen.self, Migrate.self],
        defaultSubcommand: Serve.self)
}

/// Exit status 2 for invalid configurations and bad command lines alike (ArgumentParser would use 64 for the latter).
enum ExitStatus {
    static let runtimeFailure = ExitCode(1)
    static let usage = ExitCode(2)
}

do {
    var command = try Switchboard.parseAsRoot()
    try command.run()
} catch {
    let code = Switchboard.exitCode(for: error)
    if code == .validationFailure {
        printError(Switchboard.fullMessage(for: error))
        exit(ExitStatus.usage.rawValue)
    }
    Switchboard.exit(withError: error)
}
