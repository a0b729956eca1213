import GatewayProtocol

/// How long an approval request waits for an answer: the backend asks in seconds (`timeoutSeconds`, a JSON number,
/// fractional allowed), the domain keeps whole milliseconds within the configured bounds. Anything else, including a
/// number no integer can hold (1e300), is `timeout_out_of_range` naming the bounds — decided before any conversion,
/// because converting such a number traps. Pure.
public struct ApprovalTimeout: Sendable, Equatable {
    /// Allowed timeouts in milliseconds (`gateway.approval_min_timeout_ms...approval_max_timeout_ms`).
    public let bounds: ClosedRange<Int64>
    /// The timeout when the backend names none (`gateway.approval_timeout_ms`).
    public let defaultMs: Int64

    public init(_ settings: GatewaySettings) {
        bounds = settings.approvalMinTimeoutMs...max(settings.approvalMinTimeoutMs, settings.approvalMaxTimeoutMs)
        defaultMs = settings.approvalDefaultTimeoutMs
    }

    /// `seconds` in milliseconds (rounded to the nearest), nil when absent (the default applies later).
    public func milliseconds(seconds: Double?) throws(GatewayError) -> Int64? {
        guard let seconds else { return nil }
        guard let ms = WholeNumber.rounded(seconds, scale: 1000, in: bounds) else { throw outOfRange }
        return ms
    }

    /// The timeout to use for a request that asked for `ms` (nil: the default).
    func checked(_ ms: Int64?) throws(GatewayError) -> Int64 {
        let timeout = ms ?? defaultMs
        guard bounds.contains(timeout) else { throw outOfRange }
        return timeout
    }

    private var outOfRange: GatewayError {
        GatewayError(.timeoutOutOfRange, "timeoutSeconds must be between \(bounds.lowerBound / 1000) and \(bounds.upperBound / 1000)")
    }
}
