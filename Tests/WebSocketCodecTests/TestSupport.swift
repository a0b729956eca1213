import WebSocketCodec
@_exported import TestSupport

/// A copied, comparable form of `WebSocketEvent` (whose buffers die with the callback).
enum RecordedEvent: Equatable, CustomStringConvertible {
    case message(WebSocketOpcode, [UInt8])
    case ping([UInt8])
    case pong([UInt8])
    case close(UInt16?, [UInt8])

    init(_ event: WebSocketEvent) {
        switch event {
        case .message(let opcode, let payload): self = .message(opcode, Array(payload))
        case .ping(let payload): self = .ping(Array(payload))
        case .pong(let payload): self = .pong(Array(payload))
        case .close(let code, let reason): self = .close(code, Array(reason))
        }
    }

    static func text(_ string: String) -> RecordedEvent { .message(.text, Array(string.utf8)) }

    var description: String {
        switch self {
        case .message(let opcode, let bytes): return "message(\(opcode), \(bytes.count) bytes)"
        case .ping(let bytes): return "ping(\(bytes))"
        case .pong(let bytes): return "pong(\(bytes))"
        case .close(let code, let reason): return "close(\(String(describing: code)), \(reason))"
        }
    }
}

/// What feeding a byte stream produced: the events delivered before the end or the first error, the error,
/// and how many bytes the decoder left unconsumed.
struct DecodeOutcome: Equatable {
    var events: [RecordedEvent] = []
    var error: WebSocketProtocolError?
    var leftover = 0
}

/// Plays the caller: appends each chunk to a pending buffer, decodes it, drops the consumed prefix.
func feed(_ chunks: [[UInt8]], into decoder: inout WebSocketDecoder) -> DecodeOutcome {
    var outcome = DecodeOutcome()
    var pending: [UInt8] = []
    for chunk in chunks {
        pending.append(contentsOf: chunk)
        do {
            let consumed = try pending.withUnsafeMutableBytes { buffer in
                try decoder.decode(buffer) { outcome.events.append(RecordedEvent($0)) }
            }
            precondition(consumed >= 0 && consumed <= pending.count)
            pending.removeFirst(consumed)
        } catch let error as WebSocketProtocolError {
            outcome.error = error
            break
        } catch {
            preconditionFailure("unexpected error \(error)")
        }
    }
    outcome.leftover = pending.count
    return outcome
}

func decodeWhole(
    _ bytes: [UInt8], role: WebSocketRole = .server, limits: WebSocketLimits = .testDefault,
    inflater: (any WebSocketMessageInflater)? = nil
) -> DecodeOutcome {
    var decoder = WebSocketDecoder(role: role, limits: limits, inflater: inflater)
    return feed([bytes], into: &decoder)
}

func decodeByteByByte(
    _ bytes: [UInt8], role: WebSocketRole = .server, limits: WebSocketLimits = .testDefault,
    inflater: (any WebSocketMessageInflater)? = nil
) -> DecodeOutcome {
    var decoder = WebSocketDecoder(role: role, limits: limits, inflater: inflater)
    return feed(bytes.map { [$0] }, into: &decoder)
}

/// Splits `bytes` into random-length chunks (1...maxChunk) driven by `rng`.
func randomSplit(_ bytes: [UInt8], maxChunk: Int, using rng: inout SplitMix64) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var index = 0
    while index < bytes.count {
        let length = min(Int.random(in: 1...maxChunk, using: &rng), bytes.count - index)
        chunks.append(Array(bytes[index..<(index + length)]))
        index += length
    }
    return chunks
}


extension WebSocketLimits {
    static let testDefault = WebSocketLimits(maxFrameSize: 1 << 20, maxMessageSize: 1 << 20)
}

/// A masked frame as a client would send it (what a server-role decoder expects).
func clientFrame(
    _ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false, key: UInt32 = 0x3780_41A7
) -> [UInt8] {
    WebSocketFrameEncoder.frame(opcode: opcode, payload: payload, fin: fin, rsv1: rsv1, maskKey: key)
}

func clientFrame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> [UInt8] {
    clientFrame(opcode, Array(text.utf8), fin: fin)
}

/// Builds a raw frame header by hand (no validation), for malformed-input tests.
func rawHeader(first: UInt8, masked: Bool, length: Int, lengthForm: Int? = nil, key: UInt32 = 0x0102_0304) -> [UInt8] {
    var bytes: [UInt8] = [first]
    let mask: UInt8 = masked ? 0x80 : 0
    switch lengthForm ?? (length <= 125 ? 7 : length <= 0xFFFF ? 16 : 64) {
    case 7: bytes.append(mask | UInt8(length))
    case 16: bytes.append(mask | 126); bytes += [UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
    default:
        bytes.append(mask | 127)
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(length) >> (UInt64($0) * 8)) }
    }
    if masked { bytes += [UInt8(key >> 24), UInt8(key >> 16 & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF)] }
    return bytes
}
