/// Errors that stop a run before or outside the measurement; each message says what to do about it.
/// Failures of individual connections are not errors of this kind: they are counted by kind in the report.
enum LoadTestError: Error, CustomStringConvertible, Equatable {
    /// A bad option or option combination (exit status 64, like ArgumentParser's own validation).
    case usage(String)
    /// The machine cannot support the requested load (file descriptors, ephemeral ports, source addresses).
    case limits(String)
    /// The run itself broke (a worker died, a loop could not start).
    case runtime(String)

    var description: String {
        switch self {
        case .usage(let message): return message
        case .limits(let message): return "limit: " + message
        case .runtime(let message): return "error: " + message
        }
    }
}
