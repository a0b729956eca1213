/// Streams one message body according to its `HTTPBodyFraming`, de-chunking as it goes and
/// enforcing `maxBodyBytes` (413) and, for trailers, `maxHeaderBytes` (431) before buffering.
///
/// Chunk extensions are ignored and trailer fields skipped (RFC 9112 §7.1.1, §7.1.2).
struct HTTPBodyReader {
    /// Longest chunk-size line we accept, extensions included; nobody legitimate sends more.
    static let maxChunkLineBytes = 4096

    private enum State {
        case idle
        case fixed(remaining: Int)
        case untilClose
        case chunkSize(digits: Int)
        case chunkExtension
        case chunkSizeLF
        case chunkData(remaining: Int)
        case chunkDataCR
        case chunkDataLF
        case trailerLineStart
        case trailerLine
        case trailerLF(endOfMessage: Bool)
    }

    private let limits: HTTPLimits
    private var state: State = .idle
    private var body: [UInt8] = []
    private var chunkSize = 0
    /// Bytes of the current chunk-size line, or of the trailer section so far.
    private var lineBytes = 0

    init(limits: HTTPLimits) {
        self.limits = limits
    }

    /// True while reading a close-delimited body, which only the connection's end completes.
    var isUntilClose: Bool {
        if case .untilClose = state { return true }
        return false
    }

    /// Starts a new body; any previous body must have been taken.
    mutating func start(_ framing: HTTPBodyFraming) {
        body = []
        chunkSize = 0
        lineBytes = 0
        switch framing {
        case .none:
            state = .fixed(remaining: 0)
        case .length(let length):
            // Reserve only what a slow peer cannot abuse; the array grows as data really arrives.
            body.reserveCapacity(min(length, 64 * 1024))
            state = .fixed(remaining: length)
        case .chunked:
            state = .chunkSize(digits: 0)
        case .untilClose:
            state = .untilClose
        }
    }

    /// Hands over the finished body and returns to idle.
    mutating func takeBody() -> [UInt8] {
        state = .idle
        defer { body = [] }
        return body
    }

    /// Consumes `input[offset...]` up to the end of the body; true once it is complete.
    mutating func feed(_ input: UnsafeRawBufferPointer, from offset: Int) throws(HTTPParseError) -> (consumed: Int, complete: Bool) {
        var index = offset
        while true {
            switch state {
            case .idle:
                return (index - offset, false)
            case .fixed(let remaining):
                let take = min(remaining, input.count - index)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<(index + take)]))
                index += take
                state = .fixed(remaining: remaining - take)
                return (index - offset, remaining == take)
            case .untilClose:
                let take = input.count - index
                guard body.count + take <= limits.maxBodyBytes else { throw tooLarge() }
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index...]))
                return (take, false)
            case .chunkData(let remaining):
                let take = min(remaining, input.count - index)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<(index + take)]))
                index += take
                state = remaining == take ? .chunkDataCR : .chunkData(remaining: remaining - take)
                if remaining != take { return (index - offset, false) }
            default:
                // Framing bytes are few, so a per-byte state machine is cheap and split-proof.
                guard index < input.count else { return (index - offset, false) }
                let done = try step(input[index])
                index += 1
                if done { return (index - offset, true) }
            }
        }
    }

    /// Advances the chunk framing by one byte; true when the message is complete.
    private mutating func step(_ byte: UInt8) throws(HTTPParseError) -> Bool {
        switch state {
        case .chunkSize(let digits):
            try countLineByte()
            if let value = ASCII.hexValue(byte) {
                // Check before shifting so a long run of hex digits can never overflow.
                let room = limits.maxBodyBytes - body.count
                guard Int(value) <= room, chunkSize <= (room - Int(value)) / 16 else { throw tooLarge() }
                chunkSize = chunkSize * 16 + Int(value)
                state = .chunkSize(digits: digits + 1)
            } else if byte == ASCII.lf {
                throw .badRequest("chunk size line ends with a bare LF instead of CRLF")
            } else if digits == 0 {
                throw .badRequest("chunk size is not hexadecimal")
            } else if byte == ASCII.cr {
                state = .chunkSizeLF
            } else if byte == ASCII.semicolon || ASCII.isWhitespace(byte) {
                state = .chunkExtension  // RFC 9112 §7.1.1: BWS ";" chunk-ext, ignored
            } else {
                throw .badRequest("invalid character after chunk size")
            }
        case .chunkExtension:
            try countLineByte()
            if byte == ASCII.cr {
                state = .chunkSizeLF
            } else if byte == ASCII.lf {
                throw .badRequest("chunk size line ends with a bare LF instead of CRLF")
            } else if !ASCII.isFieldValueChar(byte) {
                throw .badRequest("invalid character in chunk extension")
            }
        case .chunkSizeLF:
            guard byte == ASCII.lf else { throw .badRequest("chunk size line not ended by CRLF") }
            lineBytes = 0
            if chunkSize == 0 {
                state = .trailerLineStart  // RFC 9112 §7.1: last-chunk, then trailer section
            } else {
                state = .chunkData(remaining: chunkSize)
                chunkSize = 0
            }
        case .chunkDataCR:
            guard byte == ASCII.cr else { throw .badRequest("chunk data not followed by CRLF") }
            state = .chunkDataLF
        case .chunkDataLF:
            guard byte == ASCII.lf else { throw .badRequest("chunk data not followed by CRLF") }
            state = .chunkSize(digits: 0)
        case .trailerLineStart, .trailerLine:
            lineBytes += 1
            guard lineBytes <= limits.maxHeaderBytes else {
                throw HTTPParseError(status: 431, message: "trailer section larger than \(limits.maxHeaderBytes) bytes")
            }
            if byte == ASCII.cr {
                state = .trailerLF(endOfMessage: isAtTrailerLineStart)
            } else if byte == ASCII.lf {
                throw .badRequest("trailer line ends with a bare LF instead of CRLF")
            } else {
                state = .trailerLine
            }
        case .trailerLF(let endOfMessage):
            guard byte == ASCII.lf else { throw .badRequest("trailer line not ended by CRLF") }
            if endOfMessage { return true }
            state = .trailerLineStart
        case .idle, .fixed, .untilClose, .chunkData:
            preconditionFailure("bulk states are handled by feed")
        }
        return false
    }

    private var isAtTrailerLineStart: Bool {
        if case .trailerLineStart = state { return true }
        return false
    }

    private mutating func countLineByte() throws(HTTPParseError) {
        lineBytes += 1
        guard lineBytes <= Self.maxChunkLineBytes else { throw .badRequest("chunk size line too long") }
    }

    private func tooLarge() -> HTTPParseError {
        HTTPParseError(status: 413, message: "body larger than \(limits.maxBodyBytes) bytes")
    }
}
