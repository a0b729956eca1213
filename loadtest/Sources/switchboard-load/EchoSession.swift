import WebSocketCodec

/// One echo connection: keeps `depth` messages of `size` bytes in flight, checks every reply with an
/// `EchoVerifier`, records each round trip, and counts loss, duplication and corruption as errors.
/// Loop-confined: every call happens on the driver's loop.
final class EchoSession: ConnectionSession {
    private unowned let driver: LoopDriver
    private let size: Int
    private let depth: Int
    private var verifier: EchoVerifier
    private var client: WebSocketClient?
    private var sending = true
    /// Send times (monotonic ns) of the messages in flight, indexed by sequence % depth: at most `depth` are in
    /// flight and they come back in order, so a ring is enough.
    private var sentAt: [UInt64]
    private var payload: [UInt8]

    init(driver: LoopDriver, size: Int, depth: Int) {
        self.driver = driver
        self.size = size
        self.depth = depth
        verifier = EchoVerifier(size: size)
        sentAt = Array(repeating: 0, count: depth)
        payload = Array(repeating: 0, count: size)
    }

    var outstanding: Int { verifier.outstanding }

    func didOpen(_ client: WebSocketClient) {
        self.client = client
        fillWindow()
    }

    func didReceive(_ client: WebSocketClient, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        driver.stats.messagesReceived += 1
        driver.stats.bytesReceived += payload.count
        driver.counters.messagesReceived.add(1, ordering: .relaxed)
        switch verifier.receive(opcode: opcode, payload: payload) {
        case .matched(let sequence, let skipped):
            if skipped > 0 {
                driver.stats.echoesLost += skipped
                driver.recordError("echo_lost", count: skipped)
            }
            driver.stats.roundTripLatency.record(
                microseconds: MonotonicClock.microseconds(since: sentAt[Int(sequence % UInt64(depth))]))
        case .duplicate:
            driver.stats.echoesDuplicated += 1
            driver.recordError("echo_duplicated")
        case .corrupted:
            driver.stats.echoesCorrupted += 1
            driver.recordError("echo_corrupted")
        }
        fillWindow()
    }

    private func fillWindow() {
        guard sending, let client, client.state == .open else { return }
        while verifier.outstanding < depth {
            let sequence = verifier.takeSequence()
            payload.withUnsafeMutableBytes { EchoPayload.fill($0, sequence: sequence) }
            sentAt[Int(sequence % UInt64(depth))] = MonotonicClock.nanoseconds()
            payload.withUnsafeBytes { client.send(opcode: verifier.opcode, payload: $0, random: &driver.random) }
            driver.stats.messagesSent += 1
            driver.stats.bytesSent += size
        }
    }

    func stopSending() {
        sending = false
    }

    func didEnd() {
        let missing = verifier.abandonOutstanding()
        if missing > 0 {
            driver.stats.echoesLost += missing
            driver.recordError("echo_lost", count: missing)
        }
        client = nil
    }
}
