// Fuzz target: WebSocketDecoder over arbitrary bytes, with and without a permessage-deflate inflater.
// Compiled into the WebSocketDeflate module with WebSocketCodec linked (see scripts/fuzz).
//
// Input: byte 0 picks the options (role, compression, window bits, context takeover), byte 1 how the stream is cut
// into reads; the rest is the byte stream. Invariants checked beyond "no crash":
// - the decoder consumes a prefix of what it is given and the events obey their documented contracts (text is
//   UTF-8, control payloads ≤ 125 bytes, close codes valid, no event after a close);
// - without compression it never reports more payload bytes than it was given, with compression no message
//   exceeds the message limit;
// - feeding the stream in pieces gives the same events and the same error as feeding it at once;
// - the same bytes framed by the encoder (and compressed by the deflater) decode back to themselves.
import WebSocketCodec

private let limits = WebSocketLimits(maxFrameSize: 64 * 1024, maxMessageSize: 256 * 1024)

private struct Options {
    var role: WebSocketRole
    var compressed: Bool
    var windowBits: Int
    var noContextTakeover: Bool

    init(_ byte: UInt8) {
        role = byte & 1 == 0 ? .server : .client
        compressed = byte & 2 != 0
        windowBits = 8 + Int((byte >> 2) & 7)
        noContextTakeover = byte & 0x20 != 0
    }

    func makeDecoder() -> WebSocketDecoder {
        let inflater = compressed ? PerMessageInflater(windowBits: windowBits, noContextTakeover: noContextTakeover) : nil
        return WebSocketDecoder(role: role, limits: limits, inflater: inflater)
    }
}

/// An event copied out of the decoder's borrowed buffers, so runs can be compared: its kind (the message opcode,
/// or the control frame's), the close code, and the payload or close reason.
private struct Event: Equatable {
    var kind: WebSocketOpcode
    var code: UInt16? = nil
    var bytes: [UInt8]

    init(_ kind: WebSocketOpcode, _ bytes: [UInt8], code: UInt16? = nil) {
        self.kind = kind
        self.bytes = bytes
        self.code = code
    }

    init(_ event: WebSocketEvent) {
        switch event {
        case .message(let opcode, let payload): self.init(opcode, Array(payload))
        case .ping(let payload): self.init(.ping, Array(payload))
        case .pong(let payload): self.init(.pong, Array(payload))
        case .close(let code, let reason): self.init(.close, Array(reason), code: code)
        }
    }
}

private struct Outcome: Equatable {
    var events: [Event] = []
    var error: WebSocketProtocolError?
}

/// Decodes `reads` one after another the way a connection does: a read buffer whose unconsumed tail is kept.
private func decode(_ reads: [ArraySlice<UInt8>], options: Options) -> Outcome {
    var decoder = options.makeDecoder()
    var outcome = Outcome()
    var buffer: [UInt8] = []
    var closed = false
    for read in reads {
        buffer.append(contentsOf: read)
        do {
            let consumed = try buffer.withUnsafeMutableBytes { raw in
                try decoder.decode(raw) { event in
                    fuzzRequire(!closed, "an event after the close event")
                    check(event, options: options)
                    if case .close = event { closed = true }
                    outcome.events.append(Event(event))
                }
            }
            fuzzRequire(consumed >= 0 && consumed <= buffer.count, "consumed \(consumed) of \(buffer.count) bytes")
            buffer.removeFirst(consumed)
        } catch let error as WebSocketProtocolError {
            fuzzRequire([1002, 1007, 1009, 1011].contains(error.closeCode), "unexpected close code \(error.closeCode)")
            outcome.error = error
            return outcome
        } catch {
            fatalError("fuzz invariant: decode threw \(error)")
        }
    }
    return outcome
}

private func check(_ event: WebSocketEvent, options: Options) {
    switch event {
    case .message(let opcode, let payload):
        fuzzRequire(opcode == .text || opcode == .binary, "message with opcode \(opcode)")
        fuzzRequire(payload.count <= limits.maxMessageSize, "message of \(payload.count) bytes over the limit")
        if opcode == .text {
            fuzzRequire(String(validating: payload, as: UTF8.self) != nil, "text message is not UTF-8")
        }
    case .ping(let payload), .pong(let payload):
        fuzzRequire(payload.count <= 125, "control frame of \(payload.count) bytes")
    case .close(let code, let reason):
        fuzzRequire(reason.count <= 123, "close reason of \(reason.count) bytes")
        if let code { fuzzRequire(WebSocketCloseCode.isValidOnWire(code), "invalid close code \(code) delivered") }
        fuzzRequire(String(validating: reason, as: UTF8.self) != nil, "close reason is not UTF-8")
    }
}

/// The stream as the peer would have sent it: `payload` as one masked-or-not frame, compressed when negotiated.
private func roundTrip(_ payload: [UInt8], options: Options) {
    guard payload.count <= limits.maxFrameSize else { return }
    let maskKey: UInt32? = options.role == .server ? 0x3A5F_C901 : nil
    var wire = payload
    if options.compressed {
        let deflater = PerMessageDeflater(windowBits: options.windowBits, noContextTakeover: options.noContextTakeover)
        wire = deflater.compress(payload)
        guard wire.count <= limits.maxFrameSize else { return }
    }
    let frame = WebSocketFrameEncoder.frame(opcode: .binary, payload: wire, rsv1: options.compressed, maskKey: maskKey)
    let outcome = decode([frame[...]], options: options)
    fuzzRequire(outcome.error == nil, "an encoded frame failed to decode: \(String(describing: outcome.error))")
    fuzzRequire(outcome.events == [Event(.binary, payload)], "an encoded frame decoded to something else")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameDecoder(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let options = Options(input.byte())
    let cut = input.byte()
    let stream = input.rest

    let whole = decode([stream[...]], options: options)
    if !options.compressed {
        let reported = whole.events.reduce(0) { $0 + $1.bytes.count }
        fuzzRequire(reported <= stream.count, "reported \(reported) payload bytes from \(stream.count) input bytes")
    }
    // Reads of 1...16 bytes, or a few larger sizes, chosen by the cut byte.
    let sizes = cut & 0x80 == 0 ? [Int(cut & 0x0F) + 1, Int(cut >> 4) + 1] : [Int(cut & 0x7F) * 37 + 1, 3]
    let split = decode(pieces(of: stream, sizes: sizes), options: options)
    fuzzRequire(whole.events == split.events, "events differ when the stream arrives in pieces \(sizes)")
    fuzzRequire(whole.error?.closeCode == split.error?.closeCode,
                "error differs when the stream arrives in pieces: \(String(describing: whole.error)) vs \(String(describing: split.error))")

    roundTrip(stream, options: options)
    return 0
}
