/// A command or API call the gateway refuses: a stable code and a human message.
public struct GatewayError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public var code: GatewayErrorCode
    public var message: String
    /// With `rate_limited`: seconds until a retry can succeed (HTTP sends it as `Retry-After`).
    public var retryAfterSeconds: Int64?

    public init(_ code: GatewayErrorCode, _ message: String, retryAfterSeconds: Int64? = nil) {
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
