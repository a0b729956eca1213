/// A command or API call the gateway refuses: a stable code and a human message.
public struct GatewayError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public var code: GatewayErrorCode
    public var message: String
    /// With `overloaded`, `rate_limited`, and `storage_failed` when the store was unreachable (a retry may succeed; nothing
    /// was stored): how long the client should wait before retrying the same command (omitted otherwise; the server API
    /// also sends it as `Retry-After`, in whole seconds rounded up).
    public var retryAfterMs: Int?

    public init(_ code: GatewayErrorCode, _ message: String, retryAfterMs: Int? = nil) {
        self.code = code
        self.message = message
        self.retryAfterMs = retryAfterMs
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
