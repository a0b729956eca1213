/// What became of one push attempt, classified so the caller's outbox knows what to do next.
///
/// Reasons are provider error strings (APNs `reason`, FCM `errorCode`/`status`, HTTP status text)
/// or transport errors; they never contain tokens, keys or payloads, so they are safe to log and to
/// store as a dead-letter reason.
public enum PushOutcome: Sendable, Equatable {
    /// Accepted by the provider. `id` is APNs' `apns-id`, FCM's message `name`, or the webhook's
    /// `webhook-id`; nil when the provider sent none.
    case delivered(id: String?)
    /// Temporary failure (429, 5xx, timeouts, connection errors): try again later. `after` is the
    /// server's `Retry-After` in milliseconds (RFC 9110 §10.2.3, seconds or HTTP-date), if any;
    /// feed it to ``RetryPolicy/delay(attempt:retryAfter:random:)``.
    case retry(after: Int64?, reason: String)
    /// The device token or endpoint is gone for good: delete it, never retry.
    case invalidToken(reason: String)
    /// Any other client error: dead-letter with the reason, never retried.
    case rejected(status: Int, reason: String)

    /// True for ``retry(after:reason:)``.
    public var isRetryable: Bool {
        if case .retry = self { return true }
        return false
    }
}

/// A configuration or key error raised while building a push client.
public struct PushError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Human-readable detail; never contains key material or secrets.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
