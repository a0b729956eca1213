import WebSocketCodec

/// A load scenario: what each client connection does once its WebSocket is open, and how the run is described in
/// the report. The framework (ramp, hold, drain, close, measurement, workers, reports) is the same for all of them.
///
/// Adding one: a `Scenario` value and its `ConnectionSession` in one file, a subcommand in one file, and the
/// subcommand listed in `SwitchboardLoad`.
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
    /// Per-loop logic spanning connections (gateway scenarios), created on the driver's loop before the first
    /// connection; nil for scenarios whose connections are independent.
    func makeCoordinator(driver: LoopDriver) -> (any LoopCoordinator)?
    /// Work before any connection opens (creating users, contacts and sessions through the server API), on the
    /// main thread of the coordinating process. Throws `LoadTestError` to stop the run.
    func prepare() throws(LoadTestError)
}

extension Scenario {
    var reportsMemoryPerConnection: Bool { false }
    var maxMessageBytes: Int { 1 << 20 }
    func makeCoordinator(driver: LoopDriver) -> (any LoopCoordinator)? { nil }
    func prepare() throws(LoadTestError) {}
}

/// Scenario logic across the connections of one loop. Loop-confined: every call happens on the driver's loop.
protocol LoopCoordinator: AnyObject {
    /// Every planned connection finished its attempt: start the traffic of the hold phase.
    func startTraffic()
    /// The measurement is over: start nothing new.
    func stopSending()
    /// Work still expected (replies, deliveries, verification connections); the drain phase waits for 0.
    var outstanding: Int { get }
    /// The drain phase ended: count what is still missing as lost, release resources (threads).
    func finish()
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
    /// Request target for this connection's upgrade (e.g. with a `?token=`); nil uses the `--url` path.
    var requestPath: String? { get }
    /// Which node of the cluster this connection goes to (`--url` is node 0, the `--node-url`s follow; modulo their
    /// count).
    var node: Int { get }
}

extension ConnectionSession {
    var requestPath: String? { nil }
    var node: Int { 0 }
}
