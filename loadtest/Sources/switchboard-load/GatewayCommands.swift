import ArgumentParser

let gatewayDiscussion = """
    Reaches the gateway only over the network: devices connect to /v1/ws (the --url path, /v1/ws when it is "/") \
    with HS256 tokens minted from --jwt-secret; the backend part calls the server API with --api-key on \
    --backend-threads threads. Every user id carries a fresh run prefix. Runs in one process on one loop \
    (--workers 1 --loops 1). Exit status 1 on any loss, duplication, wrong order or failed call.
    """

/// `approvals`.
struct ApprovalsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approvals",
        abstract: "Approval requests to users with a phone and a desktop: delivery, answers, timeouts.",
        discussion: """
            --connections/2 users each connect an ios phone and a desktop. The backend posts approval requests at \
            --request-rate to random users' sessions; one random device answers (approve or deny) after up to \
            --max-answer-delay-ms, --timeout-fraction are left to time out after --approval-timeout s. Metrics: \
            request→approval_request per device and on both, answer→approval_resolved on the other device, \
            approval_timeout arrival − expiresAt. Verified: each request reaches each device once and ends there \
            exactly once, as planned. 
            """ + gatewayDiscussion)

    @OptionGroup var options: CommonOptions
    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var approvals: ApprovalsArguments

    func validate() throws {
        guard options.connections % 2 == 0 else {
            throw ValidationError("--connections must be even (2 devices per user)")
        }
    }

    func run() throws {
        try GatewayRun.execute(
            "approvals", options: options, gateway: gateway,
            components: [GatewayComponent(kind: .approvals(approvals.workload), connections: options.connections)],
            parameters: [
                "request_rate": "\(approvals.requestRate)", "timeout_fraction": "\(approvals.timeoutFraction)",
                "approval_timeout_s": "\(approvals.approvalTimeout)"
            ],
            minimumDrain: approvals.approvalTimeout + 3)
    }
}

/// `handoff`.
struct HandoffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff",
        abstract: "Sessions bouncing between a user's two devices: session_attach → session_handoff.",
        discussion: """
            --connections/2 users each have one session and two devices; at --attach-rate the inactive device of a \
            random idle user attaches. Metric: attach→session_handoff on the previous device. Verified: every \
            handoff reaches both devices exactly once, naming the right devices, in order. 
            """ + gatewayDiscussion)

    @OptionGroup var options: CommonOptions
    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var handoff: HandoffArguments

    func validate() throws {
        guard options.connections % 2 == 0 else {
            throw ValidationError("--connections must be even (2 devices per user)")
        }
    }

    func run() throws {
        try GatewayRun.execute(
            "handoff", options: options, gateway: gateway,
            components: [
                GatewayComponent(
                    kind: .handoff(.init(attachRate: handoff.attachRate)), connections: options.connections)
            ],
            parameters: ["attach_rate": "\(handoff.attachRate)"], minimumDrain: 0)
    }
}

/// `messages`.
struct MessagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "Direct messages between contacts, some recipients offline; order and loss verified.",
        discussion: """
            Pairs of users are made contacts through the API. Online pairs (two connections) write to each other; \
            in --offline-fraction of the pairs the recipient is not connected (one connection) and its messages go \
            to its log and the push outbox. --message-rate send_message per second over random directions. Metric: \
            sender→recipient. Verified per direction: no loss, no duplicate, in order; offline recipients connect \
            afterwards with ?offset=0 and must get all of theirs on resume. 
            """ + gatewayDiscussion)

    @OptionGroup var options: CommonOptions
    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var messages: MessagesArguments

    func run() throws {
        try GatewayRun.execute(
            "messages", options: options, gateway: gateway,
            components: [GatewayComponent(kind: .messages(messages.workload), connections: options.connections)],
            parameters: ["message_rate": "\(messages.messageRate)", "offline_fraction": "\(messages.offlineFraction)"],
            minimumDrain: 0)
    }
}

/// `presence`.
struct PresenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence",
        abstract: "Connect/disconnect churn watched by contacts: online and offline transitions.",
        discussion: """
            Each of --connections watchers has one contact (a subject) that connects at --churn-rate, stays up to \
            --max-online-ms, disconnects, and must be reported offline after --presence-grace-ms (set the server's \
            gateway.presence_grace_ms small for short runs). Metrics: connect→online at the watcher, \
            disconnect+grace→offline at the watcher. Verified: every transition seen once, in order. 
            """ + gatewayDiscussion)

    @OptionGroup var options: CommonOptions
    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var presence: PresenceArguments

    func run() throws {
        try GatewayRun.execute(
            "presence", options: options, gateway: gateway,
            components: [GatewayComponent(kind: .presence(presence.workload), connections: options.connections)],
            parameters: ["churn_rate": "\(presence.churnRate)", "presence_grace_ms": "\(presence.presenceGraceMs)"],
            minimumDrain: Double(presence.presenceGraceMs) / 1000 + 3)
    }
}

/// `fairness`.
struct FairnessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fairness",
        abstract: "One user floods history commands from several sockets; a second user's commands must stay fast.",
        discussion: """
            --connections − 1 sockets are devices of one user, each keeping --flood-depth history commands in \
            flight (a new one on every reply); the last socket is a second user sending history at --steady-rate. \
            Metric: the second user's command→reply (fair_reply), and both users' replies and overloaded refusals. \
            Prints a verdict against a p99 of 50 ms; with --require-p99-ms the run fails above that bound, with \
            --require-served when the second user is refused overloaded or never answered. \
            Verified: every command is answered. The gateway needs gateway.max_sockets_per_user ≥ --connections − 1. 
            """ + gatewayDiscussion)

    @OptionGroup var options: CommonOptions
    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var fairness: FairnessArguments

    func validate() throws {
        guard options.connections >= 2 else {
            throw ValidationError("--connections must be at least 2 (a flooding socket and the second user)")
        }
    }

    func run() throws {
        try GatewayRun.execute(
            "fairness", options: options, gateway: gateway,
            components: [
                GatewayComponent(
                    kind: .fairness(
                        .init(
                            floodDepth: fairness.floodDepth, steadyRate: fairness.steadyRate,
                            requireP99Ms: fairness.requireP99Ms,
                            requireServed: fairness.requireServed)),
                    connections: options.connections)
            ],
            parameters: [
                "flood_depth": "\(fairness.floodDepth)", "steady_rate": "\(fairness.steadyRate)",
                "require_p99_ms": "\(fairness.requireP99Ms)", "require_served": "\(fairness.requireServed)"
            ],
            minimumDrain: 0)
    }
}

/// `fanout`.
struct FanoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "N devices of one user; the backend publishes events at a rate: delivery to every subscriber.",
        discussion: """
            All --connections are devices (distinct device ids) of ONE user; the backend publishes \
            POST /v1/users/{id}/events at --publish-rate. Metric: publish→delivery per subscriber. Verified: each \
            subscriber gets every offset once, in order. 
            """ + gatewayDiscussion)

    @OptionGroup var options: CommonOptions
    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var fanout: FanoutArguments

    func run() throws {
        try GatewayRun.execute(
            "fanout", options: options, gateway: gateway,
            components: [
                GatewayComponent(
                    kind: .fanout(.init(publishRate: fanout.publishRate)), connections: options.connections)
            ],
            parameters: ["publish_rate": "\(fanout.publishRate)"], minimumDrain: 0)
    }
}
