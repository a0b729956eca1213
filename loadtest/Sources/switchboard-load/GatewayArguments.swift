import ArgumentParser

/// `approvals` options (also part of `mixed`).
struct ApprovalsArguments: ParsableArguments {
    @Option(help: "Approval requests the backend posts per second, in total.")
    var requestRate = 100.0
    @Option(help: "Fraction of requests (0 … 1) nobody answers: they must time out.")
    var timeoutFraction = 0.1
    @Option(help: "The backend's timeoutSeconds per request (within the server's approval_min/max_timeout_ms).")
    var approvalTimeout = 1.0
    @Option(help: "The answering device waits a random 0 … this many ms before approve/deny.")
    var maxAnswerDelayMs = 20

    var workload: ApprovalsWorkload.Options {
        .init(
            requestRate: requestRate, timeoutFraction: timeoutFraction, timeoutSeconds: approvalTimeout,
            maxAnswerDelayMs: maxAnswerDelayMs)
    }

    func validate() throws {
        guard requestRate > 0 else { throw ValidationError("--request-rate must be above 0") }
        guard (0...1).contains(timeoutFraction) else { throw ValidationError("--timeout-fraction must be 0 … 1") }
        guard approvalTimeout > 0 else { throw ValidationError("--approval-timeout must be above 0 seconds") }
        guard (0...60_000).contains(maxAnswerDelayMs), Double(maxAnswerDelayMs) < approvalTimeout * 1000 else {
            throw ValidationError("--max-answer-delay-ms must be 0 … 60000 and below --approval-timeout")
        }
    }
}

/// `fairness` options.
struct FairnessArguments: ParsableArguments {
    @Option(help: "history commands each flooding socket keeps in flight.")
    var floodDepth = 128
    @Option(help: "The second user's commands per second.")
    var steadyRate = 50.0
    @Option(help: "Fail the run when the second user's reply p99 is above this many ms (0: report only).")
    var requireP99Ms = 0.0
    @Flag(help: "Fail the run when any of the second user's commands is refused overloaded or it gets no reply at all.")
    var requireServed = false

    func validate() throws {
        guard floodDepth >= 1 else { throw ValidationError("--flood-depth must be at least 1") }
        guard steadyRate > 0 else { throw ValidationError("--steady-rate must be above 0") }
        guard requireP99Ms >= 0 else { throw ValidationError("--require-p99-ms must be 0 or more") }
    }
}

/// `handoff` options.
struct HandoffArguments: ParsableArguments {
    @Option(help: "session_attach commands per second, in total (a user with a handoff in flight is skipped).")
    var attachRate = 50.0

    func validate() throws {
        guard attachRate > 0 else { throw ValidationError("--attach-rate must be above 0") }
    }
}

/// `messages` options.
struct MessagesArguments: ParsableArguments {
    @Option(help: "send_message commands per second, in total.")
    var messageRate = 200.0
    @Option(
        help:
            "Fraction of pairs (0 … 0.9) whose recipient stays offline; verified by a resume with ?offset=0 afterwards."
    )
    var offlineFraction = 0.2

    var workload: MessagesWorkload.Options { .init(messageRate: messageRate, offlineFraction: offlineFraction) }

    func validate() throws {
        guard messageRate > 0 else { throw ValidationError("--message-rate must be above 0") }
        guard (0...0.9).contains(offlineFraction) else { throw ValidationError("--offline-fraction must be 0 … 0.9") }
    }
}

/// `presence` options.
struct PresenceArguments: ParsableArguments {
    @Option(help: "Subject connects per second, in total (a subject still in a cycle is skipped).")
    var churnRate = 20.0
    @Option(
        help: "The server's gateway.presence_grace_ms (default 5000); offline is expected that long after a disconnect."
    )
    var presenceGraceMs = 5000
    @Option(help: "A subject stays connected a random 0 … this many ms once online.")
    var maxOnlineMs = 200

    var workload: PresenceWorkload.Options {
        .init(churnRate: churnRate, graceMs: presenceGraceMs, maxOnlineMs: maxOnlineMs)
    }

    func validate() throws {
        guard churnRate > 0 else { throw ValidationError("--churn-rate must be above 0") }
        guard (0...600_000).contains(presenceGraceMs) else {
            throw ValidationError("--presence-grace-ms must be 0 … 600000")
        }
        guard (0...60_000).contains(maxOnlineMs) else { throw ValidationError("--max-online-ms must be 0 … 60000") }
    }
}

/// `fanout` options.
struct FanoutArguments: ParsableArguments {
    @Option(help: "Events the backend publishes to the one user per second.")
    var publishRate = 20.0

    func validate() throws {
        guard publishRate > 0 else { throw ValidationError("--publish-rate must be above 0") }
    }
}
