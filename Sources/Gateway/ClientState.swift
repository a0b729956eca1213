/// The hub's view of one connected device.
/// `@unchecked Sendable`: hub thread only; Sendable so it can ride along a read done off-thread.
final class ClientState: @unchecked Sendable {
    let client: GatewayClient
    var away = false
    /// True while the missed events are read from the store; live events wait in `buffered`.
    var resuming = false
    var buffered: [(offset: Int64, frame: [UInt8])] = []
    /// The highest offset sent to this device, so an event read during the replay and also delivered live goes out once.
    var lastSentOffset: Int64 = 0
    /// The highest offset this device acknowledged on this connection.
    var ackedOffset: Int64 = 0

    init(client: GatewayClient) { self.client = client }

    /// `committedAt`: when the event was known durable (`MetricsClock` µs), for the delivery-latency histogram; nil
    /// sends it unmeasured.
    func deliver(offset: Int64, frame: [UInt8], committedAt: Int? = nil) {
        if resuming {
            buffered.append((offset, frame))
        } else if offset > lastSentOffset {
            lastSentOffset = offset
            if let committedAt { client.sendEvent(frame, committedAt: committedAt) } else { client.send(frame) }
        }
    }
}

/// Presence of one user across devices: the machine's state and the hub's grace timer for it.
struct PresenceState {
    var machine = PresenceMachine.State()
    var graceTimer: GatewayTimer?
}
