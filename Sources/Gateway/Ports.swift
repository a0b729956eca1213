/// The domain's view of time, timers, threads and connected clients. The server supplies real ones; tests supply
/// manual ones, so a 60-second approval timeout is tested by moving a clock, not by waiting.

/// Wall-clock time in Unix milliseconds.
public protocol GatewayClock: AnyObject, Sendable {
    func now() -> Int64
}

/// Cancels a scheduled callback.
public protocol GatewayTimer: AnyObject {
    func cancel()
}

/// Runs callbacks on the hub's own thread.
public protocol GatewayScheduler: AnyObject, Sendable {
    /// Runs `callback` on the hub thread at wall-clock `deadline` (Unix ms); a past deadline runs soon.
    func schedule(at deadline: Int64, _ callback: @escaping () -> Void) -> GatewayTimer
    /// Runs `task` on the hub thread (from any thread).
    func execute(_ task: @escaping @Sendable () -> Void)
    /// Runs blocking work (store reads) off the hub thread.
    func runBlocking(_ work: @escaping @Sendable () -> Void)
}

/// A connected, authenticated device. `send` and `close` may be called from the hub thread and must hand the
/// work to the connection's own loop.
public protocol GatewayClient: AnyObject, Sendable {
    var userId: String { get }
    var deviceId: String { get }
    var clientType: String { get }
    /// The token's `iat` (Unix seconds), nil when it has none: a token issued before its device's revocation (or its
    /// user's deletion) is refused (`RevocationRecord.refuses`).
    var issuedAt: Int64? { get }
    /// The address group the client connects from (an IPv4 address or an IPv6 /64, see the server's
    /// `SourceAddress`), for the guessing limits; nil when unknown.
    var sourceAddress: String? { get }
    func send(_ frame: [UInt8])
    /// A committed event; `committedAt` (`MetricsClock` µs) is when the hub learnt it was durable, for the latency metric.
    func sendEvent(_ frame: [UInt8], committedAt: Int)
    /// A resume's missed events, in order. A socket paces them by its own draining (they may be far more than its
    /// outbound limit); live frames sent later go out after them.
    func sendReplay(_ frames: [[UInt8]])
    /// One part of a resume's replay read in parts (`GatewaySettings.replayChunkEvents`), in order; `last` ends it.
    /// Frames sent meanwhile with `send`, `sendEvent` or `sendReplay` wait behind the whole replay. With `last` false
    /// a client that `pacesReplay` asks for the next part with `GatewayHub.continueReplay` once it has room for it.
    func sendReplayPart(_ frames: [[UInt8]], last: Bool)
    /// Whether the client asks for each next part of a replay itself (a socket, as it drains); when false the hub
    /// reads the next part as soon as it has sent one.
    var pacesReplay: Bool { get }
    /// One command this client sent was answered (or dropped because its device is gone): the client's share of
    /// the pending-command pool has room for one more. Called on the hub thread, once per command handed to
    /// `GatewayHub.handle`.
    func commandAnswered()
    func close(code: UInt16, reason: String)
}

extension GatewayClient {
    public var sourceAddress: String? { nil }
    public var issuedAt: Int64? { nil }
    /// Clients that do not measure delivery latency (tests, in-memory adapters) send a committed event like any frame.
    public func sendEvent(_ frame: [UInt8], committedAt: Int) { send(frame) }
    /// Clients without an outbound limit (tests, in-memory adapters) take a replay as plain sends.
    public func sendReplay(_ frames: [[UInt8]]) { for frame in frames { send(frame) } }
    /// Without pacing the next part is asked for at once, so the whole replay arrives as before.
    public func sendReplayPart(_ frames: [[UInt8]], last: Bool) { sendReplay(frames) }
    public var pacesReplay: Bool { false }
    public func commandAnswered() {}
}

/// Receives approval outcomes for the backend (webhook), off the hub thread.
public protocol ApprovalObserver: AnyObject, Sendable {
    func approvalFinished(_ approval: ApprovalRecord)
}
