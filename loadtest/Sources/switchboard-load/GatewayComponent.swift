/// One part of a gateway run: which workload and how many of the run's connections it owns.
struct GatewayComponent: Sendable {
    enum Kind: Sendable {
        case approvals(ApprovalsWorkload.Options)
        case handoff(HandoffWorkload.Options)
        case messages(MessagesWorkload.Options)
        case presence(PresenceWorkload.Options)
        case fanout(FanoutWorkload.Options)
        case fairness(FairnessWorkload.Options)
        case reach(ReachWorkload.Options)
    }

    var kind: Kind
    /// Planned connections (devices kept open for the whole run) this component owns.
    var connections: Int

    /// Short name used in user ids and metric names.
    var name: String {
        switch kind {
        case .approvals: "approvals"
        case .handoff: "handoff"
        case .messages: "messages"
        case .presence: "presence"
        case .fanout: "fanout"
        case .fairness: "fairness"
        case .reach: "reach"
        }
    }
}

/// What each gateway workload implements; the coordinator forwards the driver's phases. Loop-confined.
protocol GatewayWorkload: AnyObject {
    /// The device for planned connection `index` (0-based within the component).
    func makeDevice(index: Int) -> GatewayDevice
    func startTraffic()
    func stopSending()
    var outstanding: Int { get }
    /// Counts what is still missing as lost.
    func finish()
}
