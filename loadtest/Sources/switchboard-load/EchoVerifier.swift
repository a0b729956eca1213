import WebSocketCodec

/// The bookkeeping behind echo verification, free of I/O so it can be tested alone: hands out sequence numbers to
/// send, and classifies every reply.
///
/// Ordering rule (TCP and an echo server preserve order): replies must come back as 0, 1, 2, … A reply ahead of the
/// expected one means the ones skipped are lost; one behind it (or one arriving with nothing in flight) is a
/// duplicate; a reply whose opcode, length or bytes differ from what was sent is corrupted, and is taken to stand for
/// the expected message so one corruption is not also counted as a loss. Value type; one per connection.
struct EchoVerifier: Sendable {
    /// What a reply turned out to be.
    enum Outcome: Equatable {
        /// The expected message, intact; `skipped` earlier ones never came back (lost).
        case matched(sequence: UInt64, skipped: Int)
        case duplicate
        case corrupted
    }

    /// Payload size of every message.
    let size: Int
    let opcode: WebSocketOpcode
    private(set) var nextToSend: UInt64 = 0
    private(set) var nextExpected: UInt64 = 0

    init(size: Int, opcode: WebSocketOpcode = .binary) {
        self.size = size
        self.opcode = opcode
    }

    /// Messages sent and not yet answered.
    var outstanding: Int { Int(nextToSend - nextExpected) }

    /// Takes the next sequence number to send.
    mutating func takeSequence() -> UInt64 {
        defer { nextToSend += 1 }
        return nextToSend
    }

    /// Classifies a reply and advances the expectation.
    mutating func receive(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) -> Outcome {
        guard nextExpected < nextToSend else { return .duplicate }
        guard let sequence = EchoPayload.sequence(of: payload), sequence < nextToSend, opcode == self.opcode,
              EchoPayload.matches(payload, sequence: sequence, size: size) else {
            nextExpected += 1
            return .corrupted
        }
        if sequence < nextExpected { return .duplicate }
        let skipped = Int(sequence - nextExpected)
        nextExpected = sequence + 1
        return .matched(sequence: sequence, skipped: skipped)
    }

    /// Gives up on everything outstanding (connection ended or drain timed out); returns how many were lost.
    mutating func abandonOutstanding() -> Int {
        defer { nextExpected = nextToSend }
        return outstanding
    }
}
