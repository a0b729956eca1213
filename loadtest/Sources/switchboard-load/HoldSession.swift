import WebSocketCodec

/// A connection that only holds its socket open: used by `connect` and `idle`. Any data message from the server is
/// unexpected in these scenarios and counted as an error ("unexpected_message") rather than ignored.
final class HoldSession: ConnectionSession {
    private unowned let driver: LoopDriver

    init(driver: LoopDriver) {
        self.driver = driver
    }

    func didOpen(_ client: WebSocketClient) {}

    func didReceive(_ client: WebSocketClient, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        driver.stats.messagesReceived += 1
        driver.stats.bytesReceived += payload.count
        driver.recordError("unexpected_message")
    }

    func stopSending() {}

    var outstanding: Int { 0 }

    func didEnd() {}
}
