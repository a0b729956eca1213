/// A command or API call the gateway refuses: a stable code and a human message.
public struct GatewayError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public var code: GatewayErrorCode
    public var message: String
    /// With `overloaded`: how long the client should wait before retrying the same command (omitted otherwise).
    public var retryAfterMs: Int?

    public init(_ code: GatewayErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
