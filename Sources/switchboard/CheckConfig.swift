import ArgumentParser
import SwitchboardConfig

struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a configuration file without starting: syntax, ranges, readable files, URLs, listen addresses.",
        discussion: "Exit status 0 when serve would start with it, 2 otherwise (every problem is printed).")

    @Argument(help: "The configuration file.")
    var file: String

    func run() throws {
        var configuration: SwitchboardConfiguration
        do {
            configuration = try SwitchboardConfiguration.load(path: file)
            if configuration.server.echo { configuration.applyEchoDefaults() }
            try configuration.validate()
        } catch {
            printError("\(error)")
            throw ExitStatus.usage
        }
        let preflight = Preflight.problems(configuration)
        for busy in preflight.inUse { printError("\(file): note: \(busy) (by the running server?)") }
        guard preflight.problems.isEmpty else {
            for problem in preflight.problems { printError("\(file): \(problem)") }
            throw ExitStatus.usage
        }
        print("\(file): OK")
        // Switches whose "auto" default depends on other keys: say what they came to, so nobody has to work it out.
        print("\(file): \(configuration.standaloneExplanation)")
    }
}
