/// Buffers one message head (start line, field lines, blank line) from streamed bytes and
/// enforces the size limits while it does, so a peer can never make it hold more than
/// `maxRequestLineBytes + 2 + maxHeaderBytes` bytes.
///
/// Shared by the request and response parsers. Lines must end in CRLF: a bare LF is a 400
/// (RFC 9112 §2.2 allows leniency, but accepting it invites request-smuggling disagreements
/// with proxies in front of us). Empty lines before the start line are skipped (RFC 9112 §2.2).
struct HTTPHeadReader {
    private let limits: HTTPLimits
    /// What to throw when the start line is too long (414 for requests).
    private let startLineTooLong: HTTPParseError

    /// Raw head bytes received so far; its capacity is reused across messages.
    private(set) var buffer: [UInt8] = []
    /// End (exclusive, CRLF excluded) of the start line in `buffer`; nil until it is complete.
    private(set) var startLineEnd: Int?
    /// Field lines in `buffer`, CRLF excluded.
    private(set) var fieldLines: [Range<Int>] = []
    private var lineStart = 0
    /// Bytes of complete header-section lines, CRLFs included.
    private var headerBytes = 0

    init(limits: HTTPLimits, startLineTooLong: HTTPParseError) {
        self.limits = limits
        self.startLineTooLong = startLineTooLong
    }

    /// True when no byte of a message has been buffered yet.
    var isIdle: Bool { buffer.isEmpty }

    mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        fieldLines.removeAll(keepingCapacity: true)
        startLineEnd = nil
        lineStart = 0
        headerBytes = 0
    }

    /// Consumes `input[offset...]` up to and including the blank line that ends the head.
    /// Returns how many bytes it took and whether the head is now complete.
    mutating func feed(_ input: UnsafeRawBufferPointer, from offset: Int) throws(HTTPParseError) -> (consumed: Int, complete: Bool) {
        var index = offset
        while index < input.count {
            // Scan no further than the current line may still grow, so the buffer stays bounded
            // even when one read hands us megabytes without a line break.
            let window = min(input.count, index + lineAllowance())
            var lf = index
            while lf < window && input[lf] != ASCII.lf { lf += 1 }
            guard lf < window else {
                if window < input.count { throw limitError() }
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<window]))
                return (window - offset, false)
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index...lf]))
            index = lf + 1
            if try completeLine() { return (index - offset, true) }
        }
        return (index - offset, false)
    }

    /// Parses the buffered field lines; call once `feed` reported completion.
    func headers() throws(HTTPParseError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for line in fieldLines {
            let field = try parseFieldLine(line)
            headers.add(name: field.name, value: field.value)
        }
        return headers
    }

    /// The start line's bytes (CRLF excluded); call once `feed` reported completion.
    var startLine: ArraySlice<UInt8> { buffer[0..<(startLineEnd ?? 0)] }

    // MARK: - Private

    /// How many more bytes the line being buffered may take, CRLF included.
    private func lineAllowance() -> Int {
        let pending = buffer.count - lineStart
        if startLineEnd == nil {
            return limits.maxRequestLineBytes + 2 - pending
        }
        return limits.maxHeaderBytes - headerBytes - pending
    }

    private func limitError() -> HTTPParseError {
        if startLineEnd == nil { return startLineTooLong }
        return HTTPParseError(status: 431, message: "header section larger than \(limits.maxHeaderBytes) bytes")
    }

    /// Handles the line `buffer[lineStart...]` that just received its LF; true at the blank line.
    private mutating func completeLine() throws(HTTPParseError) -> Bool {
        let lineEnd = buffer.count
        guard lineEnd - lineStart >= 2, buffer[lineEnd - 2] == ASCII.cr else {
            throw .badRequest("line ends with a bare LF instead of CRLF")
        }
        let contentEnd = lineEnd - 2
        guard startLineEnd != nil else {
            if contentEnd == lineStart {
                buffer.removeAll(keepingCapacity: true)  // RFC 9112 §2.2: ignore leading blank lines
            } else {
                startLineEnd = contentEnd
                lineStart = lineEnd
            }
            return false
        }
        headerBytes += lineEnd - lineStart
        if contentEnd == lineStart { return true }
        guard fieldLines.count < limits.maxHeaderCount else {
            throw HTTPParseError(status: 431, message: "more than \(limits.maxHeaderCount) header fields")
        }
        fieldLines.append(lineStart..<contentEnd)
        lineStart = lineEnd
        return false
    }

    /// RFC 9112 §5: field-line = field-name ":" OWS field-value OWS
    private func parseFieldLine(_ line: Range<Int>) throws(HTTPParseError) -> (name: String, value: String) {
        if ASCII.isWhitespace(buffer[line.lowerBound]) {
            // RFC 9112 §5.2: obs-fold must be rejected (or rewritten) by a server.
            throw .badRequest("obsolete line folding in header section")
        }
        var colon = line.lowerBound
        while colon < line.upperBound && ASCII.isTokenChar(buffer[colon]) { colon += 1 }
        guard colon < line.upperBound else { throw .badRequest("header line without a colon") }
        guard buffer[colon] == ASCII.colon else {
            if ASCII.isWhitespace(buffer[colon]) {
                // RFC 9112 §5.1: whitespace between name and colon must be rejected with 400.
                throw .badRequest("whitespace between header name and colon")
            }
            throw .badRequest("invalid character in header name")
        }
        guard colon > line.lowerBound else { throw .badRequest("empty header name") }

        var valueStart = colon + 1
        var valueEnd = line.upperBound
        while valueStart < valueEnd && ASCII.isWhitespace(buffer[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart && ASCII.isWhitespace(buffer[valueEnd - 1]) { valueEnd -= 1 }
        for index in valueStart..<valueEnd where !ASCII.isFieldValueChar(buffer[index]) {
            throw .badRequest("invalid character in header value")
        }
        return (
            name: String(decoding: buffer[line.lowerBound..<colon], as: UTF8.self),
            value: String(decoding: buffer[valueStart..<valueEnd], as: UTF8.self)
        )
    }
}
