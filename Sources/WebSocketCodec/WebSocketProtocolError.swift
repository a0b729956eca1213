/// Why a WebSocket connection must be failed (RFC 6455 §7.1.7): the close code to send and a short reason.
/// Thrown by the decoder and by message inflaters; the caller sends a close frame with `closeCode` and closes.
public struct WebSocketProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public var closeCode: UInt16
    public var reason: String

    public init(closeCode: UInt16, reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }

    public var description: String { "WebSocket protocol error \(closeCode): \(reason)" }
}
