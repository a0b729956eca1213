import Foundation

/// What the client does after a connection ends, decided from how it ended (docs/PROTOCOL.md, "Close codes").
public enum ReconnectAction: Sendable, Equatable {
    /// Reconnect after the backoff delay for this attempt (network errors, 1001, 1006, 1011).
    case backoff
    /// Reconnect soon, after the short ``ReconnectPolicy/soonDelay`` (1013: slow consumer; resume picks up).
    case soon
    /// Ask the token provider for a new token, then reconnect (401 on the upgrade, 4001, 4003).
    case refreshToken
    /// Do not reconnect: the client did something the server refuses (1002, 1003, 1007, 1008, 1009, other 4xxx,
    /// 4xx upgrade refusals). The connection state becomes ``ConnectionState/stopped(_:)``.
    case stop
}

/// Reconnect rules: the close-code table and exponential backoff with full jitter.
///
/// Delay for attempt `n` (0-based, counting failures since the last successful `welcome`):
/// `random(0 ..< min(maxDelay, initialDelay · 2ⁿ))` — "full jitter", so a fleet of clients that lost the same
/// server spreads out instead of reconnecting in waves.
public struct ReconnectPolicy: Sendable {
    /// The ceiling of the first backoff window, in seconds.
    public var initialDelay: Double
    /// The largest backoff window, in seconds.
    public var maxDelay: Double
    /// The delay after a 1013 close (the server asked us to come back and resume), in seconds.
    public var soonDelay: Double
    /// Consecutive token rejections after which the client stops with ``ClientError/authenticationFailed(_:)``
    /// instead of asking the provider again.
    public var maxTokenRefreshes: Int

    public init(initialDelay: Double = 0.5, maxDelay: Double = 30, soonDelay: Double = 0.1, maxTokenRefreshes: Int = 3)
    {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.soonDelay = soonDelay
        self.maxTokenRefreshes = maxTokenRefreshes
    }

    /// The backoff window for `attempt` (0-based), before jitter.
    public func window(attempt: Int) -> Double {
        min(maxDelay, initialDelay * Double(1 << min(attempt, 40)))
    }

    /// The delay for `attempt` with full jitter; `unitRandom` is in `0..<1`.
    public func delay(attempt: Int, unitRandom: Double) -> Double {
        window(attempt: attempt) * unitRandom
    }

    /// How to react to a connection that ended with `error`.
    public static func action(for error: TransportError) -> ReconnectAction {
        switch error {
        case .connectFailed:
            return .backoff
        case .upgradeRejected(let status):
            switch status {
            case 401: return .refreshToken
            case 500...599, 408, 429: return .backoff  // 503 while the server drains
            default: return .stop  // 400/403/404/426: a client or configuration error
            }
        case .closed(let code):
            guard let code else { return .backoff }  // no close frame: network gone or server killed
            switch code {
            case 1013: return .soon
            case 4001, 4003: return .refreshToken
            case 1000, 1001, 1011, 1012, 1014: return .backoff
            default: return .stop  // 1002, 1003, 1007–1010, other 4xxx (4010 deleted, 4011 revoked)
            }
        }
    }
}

/// Time for the client: injectable so tests can check backoff without waiting.
public protocol ClientClock: Sendable {
    /// Now, in Unix milliseconds (used for approval deadlines).
    func nowMilliseconds() -> Int64
    /// Suspends for `seconds` (throws when the task is cancelled).
    func sleep(seconds: Double) async throws
}

/// The real clock: `ContinuousClock` for sleeping, the system clock for "now".
public struct SystemClientClock: ClientClock {
    public init() {}
    public func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
    }
}
