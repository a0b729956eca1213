import HTTP1
import WebSocketCodec

/// What runs behind the WebSocket endpoints: the echo endpoint now, the gateway domain later.
/// Called on the loop thread that owns the connection.
public protocol WebSocketApplication: AnyObject, Sendable {
    /// The handler for an upgrade request to `head.path`, or nil when nothing is served there (the client gets 404).
    /// Runs before the handshake is validated further, so it must not keep state for the request.
    func handler(forUpgrade head: HTTPRequestHead) -> WebSocketHandler?
}

/// Receives one WebSocket's life. All calls happen on the connection's loop thread.
public protocol WebSocketHandler: AnyObject {
    func webSocketDidOpen(_ socket: WebSocket)
    /// A complete message; `payload` is only valid during the call (text is already UTF-8 validated).
    func webSocket(_ socket: WebSocket, didReceive opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer)
    /// The connection is gone (close handshake finished, failed, or dropped); `code` as sent or received, 1006 when none.
    func webSocketDidClose(_ socket: WebSocket, code: UInt16)
}

/// Echoes every message back as it came (text as text, binary as binary). What conformance runs and benchmarks use.
/// Stateless: one instance serves every connection.
public final class EchoApplication: WebSocketApplication, WebSocketHandler, @unchecked Sendable {
    // @unchecked: no stored state at all.
    public init() {}

    public func handler(forUpgrade head: HTTPRequestHead) -> WebSocketHandler? { self }

    public func webSocketDidOpen(_ socket: WebSocket) {}

    public func webSocket(_ socket: WebSocket, didReceive opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        socket.send(opcode: opcode, payload: payload)
    }

    public func webSocketDidClose(_ socket: WebSocket, code: UInt16) {}
}
