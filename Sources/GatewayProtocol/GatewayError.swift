/// A command or API call the gateway refuses: a stable code and a human message.
public struct GatewayError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public var code: GatewayErrorCode
    public var message: String

    public init(_ code: GatewayErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
