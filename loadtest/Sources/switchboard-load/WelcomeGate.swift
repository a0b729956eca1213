/// Holds a workload's traffic until every planned device has had its `welcome` (or has ended without one).
///
/// A device that connects without a resume offset gets live events from its `welcome`'s `latestOffset` on
/// (docs/PROTOCOL.md), so a message committed for it between its upgrade and its welcome is in its log but never
/// sent to it live; and a device sends nothing before its welcome. Traffic started at the upgrades (the ramp's end)
/// therefore made early messages look lost or reordered, or not sent, most often with two nodes where a welcome
/// takes longer. Free of I/O so it can be tested alone; loop-confined like its owner.
struct WelcomeGate: Sendable, Equatable {
    /// Planned devices still waiting for their welcome.
    private var waiting: Set<Int>
    /// The driver asked for traffic (the ramp is over).
    private var requested = false
    /// Traffic has been released; stays true.
    private(set) var isOpen = false

    init(devices: Int) {
        waiting = Set(0..<devices)
    }

    /// Planned devices that have neither been welcomed nor ended.
    var waitingCount: Int { waiting.count }

    /// The ramp is over. Returns true when traffic may start now (false: it starts with the last welcome).
    mutating func requestTraffic() -> Bool {
        requested = true
        return openIfDue()
    }

    /// Planned device `index` was welcomed or ended (a failed connection sends nothing and gets nothing live).
    /// Returns true when this releases the traffic. Indices beyond the plan (extra connections) are ignored.
    mutating func resolved(_ index: Int) -> Bool {
        guard waiting.remove(index) != nil else { return false }
        return openIfDue()
    }

    private mutating func openIfDue() -> Bool {
        guard requested, !isOpen, waiting.isEmpty else { return false }
        isOpen = true
        return true
    }
}
