import GatewayProtocol

/// A store error that knows whether trying again may succeed: the PostgreSQL store's errors say so when the
/// connection broke or the server is restarting (nothing of the failed batch was kept). The hub turns such an error
/// into `storage_failed` with `retryAfterMs`, so clients and backends retry it rather than give up.
public protocol RetryableStoreFailure: Error {
    /// True when the same write or read, tried again a moment later, may succeed and nothing of this one was kept.
    var isRetryable: Bool { get }
}

extension GatewayError {
    /// How long a client should wait before retrying a write that failed because the store was unreachable: about the
    /// time a PostgreSQL restart or fail-over takes to accept connections again (measured by scripts/chaos).
    public static let storageRetryAfterMs = 500

    /// `storage_failed` for `cause`, with `retryAfterMs` when the store says a retry may succeed.
    static func storageFailed(_ message: String, cause: Error) -> GatewayError {
        let retryable = (cause as? RetryableStoreFailure)?.isRetryable == true
        return GatewayError(.storageFailed, message, retryAfterMs: retryable ? storageRetryAfterMs : nil)
    }
}
