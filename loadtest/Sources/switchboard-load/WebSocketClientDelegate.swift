import WebSocketCodec

/// What a `WebSocketClient` reports to its owner (a scenario's session via the loop driver).
/// Every call happens on the client's loop thread.
protocol WebSocketClientDelegate: AnyObject {
    /// The 101 response was parsed and validated; `upgradeMicroseconds` runs from TCP connect start to that moment.
    func clientDidOpen(_ client: WebSocketClient, upgradeMicroseconds: UInt64)
    /// A complete data message (already inflated when permessage-deflate is on). The buffer is only valid during the call.
    func clientDidReceive(_ client: WebSocketClient, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer)
    /// The client is finished: `failure` is nil for an orderly end we asked for (close handshake or `abort()`),
    /// otherwise a short snake_case kind for the report ("connect_refused", "closed_by_server_1001", …).
    /// Called exactly once, never synchronously from `start`.
    func clientDidEnd(_ client: WebSocketClient, failure: String?)
}
