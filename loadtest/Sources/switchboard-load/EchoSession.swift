import WebSocketCodec

/// One echo connection: keeps `depth` messages of `size` bytes in flight, checks every reply byte for byte and in
/// order, and records the round trip of each.
///
/// Ordering rule (TCP and the echo server preserve order): replies must arrive with sequence numbers 0, 1, 2, …
/// A reply ahead of the expected one means the ones skipped are lost; one behind it is a duplicate; a reply whose
/// length or bytes differ is corrupted (and its sequence is taken as the expected one, so one corruption is not also
/// counted as a loss). Loop-confined: every call happens on the driver's loop.
final class EchoSession: ConnectionSession {
    private unowned let driver: LoopDriver
    private let size: Int
    private let depth: Int
    private let opcode = WebSocketOpcode.binary
    private var client: WebSocketClient?
    private var nextToSend: UInt64 = 0
    private var nextExpected: UInt64 = 0
    private var sending = true
    /// Send times (monotonic ns) of the messages in flight, indexed by sequence % depth: at most `depth` are in
    /// flight and they come back in order, so a ring is enough.
    private var sentAt: [UInt64]
    private var payload: [UInt8]

    init(driver: LoopDriver, size: Int, depth: Int) {
        self.driver = driver
        self.size = size
        self.depth = depth
        sentAt = Array(repeating: 0, count: depth)
        payload = Array(repeating: 0, count: size)
    }

    var outstanding: Int { Int(nextToSend - nextExpected) }

    func didOpen(_ client: WebSocketClient) {
        self.client = client
        fillWindow()
    }

    func didReceive(_ client: WebSocketClient, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        driver.stats.messagesReceived += 1
        driver.stats.bytesReceived += payload.count
        driver.counters.messagesReceived.add(1, ordering: .relaxed)
        guard nextExpected < nextToSend else {
            // Nothing is in flight, so this can only be a duplicate of something already answered.
            driver.stats.echoesDuplicated += 1
            driver.recordError("echo_duplicated")
            return
        }
        guard let sequence = EchoPayload.sequence(of: payload), sequence < nextToSend,
              opcode == self.opcode, EchoPayload.matches(payload, sequence: sequence, size: size) else {
            driver.stats.echoesCorrupted += 1
            driver.recordError("echo_corrupted")
            complete(nextExpected)
            return
        }
        if sequence < nextExpected {
            driver.stats.echoesDuplicated += 1
            driver.recordError("echo_duplicated")
            return
        }
        if sequence > nextExpected {
            let skipped = Int(sequence - nextExpected)
            driver.stats.echoesLost += skipped
            driver.recordError("echo_lost", count: skipped)
        }
        driver.stats.roundTripLatency.record(
            microseconds: MonotonicClock.microseconds(since: sentAt[Int(sequence % UInt64(depth))]))
        complete(sequence)
    }

    /// Marks everything up to and including `sequence` as answered and refills the window.
    private func complete(_ sequence: UInt64) {
        nextExpected = sequence + 1
        fillWindow()
    }

    private func fillWindow() {
        guard sending, let client, client.state == .open else { return }
        while outstanding < depth {
            let sequence = nextToSend
            nextToSend += 1
            payload.withUnsafeMutableBytes { EchoPayload.fill($0, sequence: sequence) }
            sentAt[Int(sequence % UInt64(depth))] = MonotonicClock.nanoseconds()
            payload.withUnsafeBytes { client.send(opcode: opcode, payload: $0, random: &driver.random) }
            driver.stats.messagesSent += 1
            driver.stats.bytesSent += size
        }
    }

    func stopSending() {
        sending = false
    }

    func didEnd() {
        let missing = outstanding
        if missing > 0 {
            driver.stats.echoesLost += missing
            driver.recordError("echo_lost", count: missing)
            nextExpected = nextToSend
        }
        client = nil
    }
}
