import ArgumentParser

/// The `--mix` of the `mixed` scenario: weights per gateway scenario, and how they split the connections.
/// Pure value; `Sendable`.
struct GatewayMix: Equatable, Sendable {
    /// Scenario names in the order they take connections.
    static let names = ["approvals", "messages", "handoff", "presence", "fanout"]
    /// Weight per scenario name (0 when left out).
    var weights: [String: Int]

    /// Parses `name=weight,…` (e.g. "approvals=4,messages=4,handoff=2"); throws a message naming the bad part.
    init(parsing text: String) throws(LoadTestError) {
        weights = [:]
        for part in text.split(separator: ",") {
            let pieces = part.split(separator: "=")
            guard pieces.count == 2, let weight = Int(pieces[1]), weight >= 0,
                  Self.names.contains(String(pieces[0])) else {
                throw .usage("--mix: \"\(part)\" is not NAME=WEIGHT with NAME one of \(Self.names.joined(separator: ", "))")
            }
            weights[String(pieces[0])] = weight
        }
        guard weights.values.reduce(0, +) > 0 else { throw .usage("--mix needs at least one positive weight") }
    }

    /// Connections per scenario: proportional to the weights, even for the two-device scenarios (approvals,
    /// handoff), the remainder to the first scenario that takes odd counts. Scenarios left with 0 are dropped.
    func split(_ connections: Int) -> [(name: String, connections: Int)] {
        let total = weights.values.reduce(0, +)
        var result: [(name: String, connections: Int)] = []
        var used = 0
        for name in Self.names {
            let weight = weights[name] ?? 0
            guard weight > 0 else { continue }
            var share = connections * weight / total
            if name == "approvals" || name == "handoff" { share -= share % 2 }
            result.append((name, share))
            used += share
        }
        if let index = result.firstIndex(where: { $0.name != "approvals" && $0.name != "handoff" }) {
            result[index].connections += connections - used
        }
        return result.filter { $0.connections > 0 }
    }
}

/// `mixed`: several gateway scenarios at once on one server, each on its share of the connections.
struct MixedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mixed",
        abstract: "A weighted mix of approvals, messages, handoff, presence and fanout, at the same time.",
        discussion: """
            --connections are split by --mix weights (approvals and handoff get even shares); each part runs as \
            its own scenario with its own rate options, all for the same --duration, each verified as alone.
            """)

    @OptionGroup var options: CommonOptions
    @OptionGroup var gateway: GatewayOptions
    @Option(help: "Weights: NAME=WEIGHT,… with NAME in approvals, messages, handoff, presence, fanout.")
    var mix = "approvals=4,messages=4,handoff=2,presence=1,fanout=1"
    @OptionGroup var approvals: ApprovalsArguments
    @OptionGroup var handoff: HandoffArguments
    @OptionGroup var messages: MessagesArguments
    @OptionGroup var presence: PresenceArguments
    @OptionGroup var fanout: FanoutArguments

    func validate() throws {
        do { _ = try GatewayMix(parsing: mix) } catch { throw ValidationError(error.description) }
    }

    func run() throws {
        let parts = try GatewayMix(parsing: mix).split(options.connections)
        let components = parts.map { part -> GatewayComponent in
            let kind: GatewayComponent.Kind
            switch part.name {
            case "approvals": kind = .approvals(approvals.workload)
            case "handoff": kind = .handoff(.init(attachRate: handoff.attachRate))
            case "messages": kind = .messages(messages.workload)
            case "presence": kind = .presence(presence.workload)
            default: kind = .fanout(.init(publishRate: fanout.publishRate))
            }
            return GatewayComponent(kind: kind, connections: part.connections)
        }
        var parameters = ["mix": parts.map { "\($0.name)=\($0.connections)" }.joined(separator: ",")]
        parameters["request_rate"] = "\(approvals.requestRate)"
        parameters["message_rate"] = "\(messages.messageRate)"
        let drain = max(approvals.approvalTimeout + 3, Double(presence.presenceGraceMs) / 1000 + 3)
        try GatewayRun.execute("mixed", options: options, gateway: gateway, components: components,
                               parameters: parameters, minimumDrain: drain)
    }
}
