extension GatewayClient {
    /// Clients that do not measure delivery latency (tests, in-memory adapters) send a committed event like any frame.
    public func sendEvent(_ frame: [UInt8], committedAt: Int) { send(frame) }
}
