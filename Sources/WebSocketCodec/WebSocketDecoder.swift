/// Incremental RFC 6455 decoder: bytes in, validated events out. Works for either role (see `WebSocketRole`).
///
/// Ownership: owned by one connection and used from one thread at a time; not thread-safe. No I/O, no clocks.
///
/// Usage: the caller keeps a read buffer, calls `decode` on its filled part, drops the consumed prefix, keeps the
/// rest, appends newly read bytes and calls again. The decoder consumes payload bytes as soon as they arrive
/// (unmasking in place, copying into its message buffer and UTF-8 checking them), so memory stays bounded by the
/// limits and invalid text fails fast; only an incomplete frame header or an incomplete control frame (≤ 139
/// bytes) is left unconsumed.
///
/// Fast path: an unfragmented, uncompressed data frame that lies entirely in the buffer is delivered pointing into
/// the caller's buffer — no copy, no allocation. Otherwise the message is reassembled in an internal buffer that is
/// reused between messages (its capacity is released after a message that made it grow beyond 64 KiB).
///
/// Errors: `decode` throws `WebSocketProtocolError` on the first violation; the caller should send a close frame
/// with its `closeCode` and stop reading. The decoder is then failed: later calls rethrow the same error.
/// Errors thrown by `onEvent` propagate unchanged; after one the decoder's state is unspecified, so stop using it.
///
/// After a close event the decoder is closed (`isClosed`): per RFC 6455 §5.5.1 nothing may follow a close frame,
/// so all remaining and future bytes are consumed and ignored, and no further events are delivered.
public struct WebSocketDecoder {
    // Stored properties are laid out in declaration order: the word-sized ones first, then the small ones together,
    // so that padding does not grow every connection's decoder (128 → 104 bytes).

    /// The size limits enforced (1009 when exceeded).
    public let limits: WebSocketLimits
    let inflater: (any WebSocketMessageInflater)?
    /// Payload bytes of the current message seen on the wire so far (before inflation).
    var messageWireBytes = 0
    /// Reassembly buffer for fragmented, compressed or partially arrived messages.
    var message: [UInt8] = []
    var frameRemaining = 0
    /// Payload bytes of the current frame already unmasked (the masking phase for the next chunk).
    var frameMaskOffset = 0
    var failure: WebSocketProtocolError?
    var validator = UTF8Validator()
    var frameMaskKey: UInt32?

    /// Which end this decoder works for; decides the masking rule.
    public let role: WebSocketRole
    /// Opcode (.text/.binary) of the data message in progress, nil between messages.
    var messageOpcode: WebSocketOpcode?
    var messageCompressed = false
    /// Set while a data frame's payload is still arriving.
    var inFramePayload = false
    var frameFin = false
    /// True once a close frame was delivered; further input is ignored.
    public private(set) var isClosed = false

    /// Reassembly capacity kept between messages; a buffer that grew beyond this is released.
    static let retainedCapacity = 64 * 1024

    /// Creates a decoder. Pass an `inflater` only when a compression extension (permessage-deflate) was negotiated;
    /// without one, any frame with RSV1 set fails with 1002.
    public init(role: WebSocketRole, limits: WebSocketLimits, inflater: (any WebSocketMessageInflater)? = nil) {
        self.role = role
        self.limits = limits
        self.inflater = inflater
    }

    /// Consumes as much of `buffer` as it can (unmasking in place), calling `onEvent` for each complete message or
    /// control frame in order, and returns the number of bytes consumed (a prefix of `buffer`).
    /// Event buffers are only valid during the `onEvent` call and may point into `buffer`.
    /// Throws `WebSocketProtocolError` on the first violation (close code 1002, 1007 or 1009, or what the inflater
    /// threw); errors thrown by `onEvent` propagate. After a close event it returns `buffer.count` and ignores the data.
    public mutating func decode(
        _ buffer: UnsafeMutableRawBufferPointer, onEvent: (WebSocketEvent) throws -> Void
    ) throws -> Int {
        if let failure { throw failure }
        if isClosed { return buffer.count }
        do {
            return try decodeFrames(buffer, onEvent: onEvent)
        } catch let error as WebSocketProtocolError {
            failure = error
            releaseMessage()
            throw error
        }
    }

    private mutating func decodeFrames(
        _ buffer: UnsafeMutableRawBufferPointer, onEvent: (WebSocketEvent) throws -> Void
    ) throws -> Int {
        var offset = 0
        while offset < buffer.count {
            if inFramePayload {
                let count = min(frameRemaining, buffer.count - offset)
                let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
                offset += count
                try consumePayload(chunk, onEvent: onEvent)
                continue
            }
            guard let header = try parseHeader(buffer, at: offset) else { break }
            let payloadStart = offset + header.headerLength
            let payloadEnd = payloadStart + header.payloadLength
            if header.opcode.isControl {
                // Control frames are small (≤ 125 bytes), so wait until one is complete and deliver it in place.
                guard payloadEnd <= buffer.count else { break }
                let payload = UnsafeMutableRawBufferPointer(rebasing: buffer[payloadStart..<payloadEnd])
                if let key = header.maskKey { WebSocketMasking.apply(key: key, to: payload) }
                offset = payloadEnd
                try deliverControl(header.opcode, UnsafeRawBufferPointer(payload), onEvent: onEvent)
                if isClosed { return buffer.count }
                continue
            }
            if header.fin && header.opcode != .continuation && !header.rsv1 && payloadEnd <= buffer.count {
                // Fast path: a whole unfragmented message is here; unmask and validate in place, no copy.
                let payload = UnsafeMutableRawBufferPointer(rebasing: buffer[payloadStart..<payloadEnd])
                if let key = header.maskKey { WebSocketMasking.apply(key: key, to: payload) }
                if header.opcode == .text && !UTF8Validator.isValid(UnsafeRawBufferPointer(payload)) {
                    throw Self.failure(WebSocketCloseCode.invalidPayload, "invalid UTF-8 in text message")
                }
                offset = payloadEnd
                try onEvent(.message(opcode: header.opcode, payload: UnsafeRawBufferPointer(payload)))
                continue
            }
            beginFrame(header)
            offset = payloadStart
            if header.payloadLength == 0 {
                // An empty frame still ends its message (and, if compressed, must flush the inflater).
                try consumePayload(UnsafeMutableRawBufferPointer(start: nil, count: 0), onEvent: onEvent)
            }
        }
        return offset
    }

    /// Starts streaming a data frame's payload; the header rules were already checked by `parseHeader`.
    private mutating func beginFrame(_ header: WebSocketFrameHeader) {
        if header.opcode != .continuation {
            messageOpcode = header.opcode
            messageCompressed = header.rsv1
            messageWireBytes = 0
            validator.reset()
        }
        messageWireBytes += header.payloadLength
        inFramePayload = true
        frameFin = header.fin
        frameRemaining = header.payloadLength
        frameMaskKey = header.maskKey
        frameMaskOffset = 0
    }

    /// Unmasks the next piece of the current data frame's payload, inflates and/or appends it to the message, checks
    /// UTF-8 for text, and delivers the message when this piece ends its final frame.
    private mutating func consumePayload(
        _ chunk: UnsafeMutableRawBufferPointer, onEvent: (WebSocketEvent) throws -> Void
    ) throws {
        if let key = frameMaskKey {
            WebSocketMasking.apply(key: key, to: chunk, offset: frameMaskOffset)
        }
        frameMaskOffset += chunk.count
        frameRemaining -= chunk.count
        let frameEnded = frameRemaining == 0
        let isText = messageOpcode == .text
        if messageCompressed, let inflater {
            let isFinal = frameEnded && frameFin
            // Empty non-final pieces carry nothing; the final call must happen even when empty (RFC 7692 §7.2.2).
            if chunk.count > 0 || isFinal {
                let before = message.count
                try inflater.inflate(
                    UnsafeRawBufferPointer(chunk), isFinal: isFinal, into: &message, limit: limits.maxMessageSize)
                if isText && message.count > before {
                    var validator = self.validator
                    let valid = message.withUnsafeBytes {
                        validator.validate(UnsafeRawBufferPointer(rebasing: $0[before...]))
                    }
                    self.validator = validator
                    if !valid {
                        throw Self.failure(WebSocketCloseCode.invalidPayload, "invalid UTF-8 in text message")
                    }
                }
            }
        } else if chunk.count > 0 {
            if isText && !validator.validate(UnsafeRawBufferPointer(chunk)) {
                throw Self.failure(WebSocketCloseCode.invalidPayload, "invalid UTF-8 in text message")
            }
            message.append(contentsOf: UnsafeRawBufferPointer(chunk))
        }
        guard frameEnded else { return }
        inFramePayload = false
        guard frameFin, let opcode = messageOpcode else { return }
        if opcode == .text && !validator.isAtCharacterBoundary {
            throw Self.failure(WebSocketCloseCode.invalidPayload, "text message ends inside a UTF-8 sequence")
        }
        try message.withUnsafeBytes { try onEvent(.message(opcode: opcode, payload: $0)) }
        finishMessage()
    }

    /// Validates and delivers a complete, unmasked control frame (RFC 6455 §5.5).
    private mutating func deliverControl(
        _ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, onEvent: (WebSocketEvent) throws -> Void
    ) throws {
        switch opcode {
        case .ping: try onEvent(.ping(payload))
        case .pong: try onEvent(.pong(payload))
        default:
            // RFC 6455 §5.5.1: an empty body or a 2-byte code followed by a UTF-8 reason; §7.4 for valid codes.
            if payload.isEmpty {
                isClosed = true
                releaseMessage()
                try onEvent(.close(code: nil, reason: payload))
                return
            }
            guard payload.count >= 2 else {
                throw Self.failure(WebSocketCloseCode.protocolError, "close payload of 1 byte")
            }
            let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
            guard WebSocketCloseCode.isValidOnWire(code) else {
                throw Self.failure(WebSocketCloseCode.protocolError, "invalid close code \(code)")
            }
            let reason = UnsafeRawBufferPointer(rebasing: payload[2...])
            guard UTF8Validator.isValid(reason) else {
                throw Self.failure(WebSocketCloseCode.invalidPayload, "close reason is not valid UTF-8")
            }
            isClosed = true
            releaseMessage()
            try onEvent(.close(code: code, reason: reason))
        }
    }

    /// Resets message state after delivery, keeping the reassembly buffer's capacity unless it grew too large.
    private mutating func finishMessage() {
        messageOpcode = nil
        messageCompressed = false
        messageWireBytes = 0
        validator.reset()
        if message.capacity > Self.retainedCapacity {
            message = []
        } else {
            message.removeAll(keepingCapacity: true)
        }
    }

    private mutating func releaseMessage() {
        messageOpcode = nil
        inFramePayload = false
        message = []
    }
}
