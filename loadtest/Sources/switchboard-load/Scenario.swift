import WebSocketCodec

/// A load scenario: what each client connection does once its WebSocket is open, and how the run is described in
/// the report. The framework (ramp, hold, drain, close, measurement, workers, reports) is the same for all of them.
///
/// Adding one (part 2: approvals, handoff, messages, presence, mixed, fanout): a `Scenario` value and its
/// `ConnectionSession` in one file, a subcommand in one file, and the subcommand listed in `SwitchboardLoad`.
/// Thread-safety: a scenario is an immutable `Sendable` value shared by every loop; sessions are loop-confined.
protocol Scenario: Sendable {
    /// The subcommand name ("echo").
    var name: String { get }
    /// Scenario options for the report, e.g. ["size": "20", "depth": "1"].
    var parameters: [String: String] { get }
    /// Whether the report should lead with server memory per connection (idle) rather than message throughput.
    var reportsMemoryPerConnection: Bool { get }
    /// Largest message a client accepts from the server (RFC 6455 §10.4 says to bound it).
    var maxMessageBytes: Int { get }
    /// The behaviour of connection `id` of `driver` (called on the driver's loop before the connection starts).
    func makeSession(id: Int, driver: LoopDriver) -> any ConnectionSession
}

extension Scenario {
    var reportsMemoryPerConnection: Bool { false }
    var maxMessageBytes: Int { 1 << 20 }
}

/// One connection's behaviour in a scenario. Loop-confined: every call happens on the owning driver's loop.
protocol ConnectionSession: AnyObject {
    /// The WebSocket is open: start traffic (or just hold).
    func didOpen(_ client: WebSocketClient)
    /// A data message arrived (the payload is only valid during the call).
    func didReceive(_ client: WebSocketClient, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer)
    /// The measurement is over: send nothing new, let what is in flight come back.
    func stopSending()
    /// Messages sent and still expected back; the drain phase waits for this to reach 0.
    var outstanding: Int { get }
    /// The connection ended (orderly or not). Anything still outstanding is lost and must be counted as such.
    func didEnd()
}
