/// Incremental response parser (client side): head plus a Content-Length, chunked or
/// close-delimited body, in the same style as `HTTPRequestParser`. Not thread-safe: one per
/// connection, used from that connection's thread.
///
/// 1xx (e.g. 101 Switching Protocols), 204 and 304 responses end at the head, so bytes after
/// a 101 (WebSocket frames) are left unconsumed. A response without Content-Length or
/// Transfer-Encoding is delimited by the connection closing: call `finish()` at EOF.
/// Responses to HEAD requests are not special-cased (this client never sends HEAD).
/// Errors reuse the request statuses to say what was wrong: 400 malformed, 413 body too
/// large, 414 status line too long, 431 headers too large, 501 unsupported
/// Transfer-Encoding, 505 version other than HTTP/1.x. They are sticky until `reset()`.
public struct HTTPResponseParser {
    private let limits: HTTPLimits
    private var headReader: HTTPHeadReader
    private var bodyReader: HTTPBodyReader
    private var pendingHead: HTTPResponseHead?
    private var failure: HTTPParseError?

    /// Creates a parser that enforces `limits` (the status line uses `maxRequestLineBytes`).
    public init(limits: HTTPLimits = .init()) {
        self.limits = limits
        headReader = HTTPHeadReader(
            limits: limits,
            startLineTooLong: HTTPParseError(status: 414, message: "status line longer than \(limits.maxRequestLineBytes) bytes")
        )
        bodyReader = HTTPBodyReader(limits: limits)
    }

    /// Consumes bytes up to the end of at most ONE response and returns it when complete;
    /// later bytes are left for the caller. Partial input is buffered: `(bytes.count, nil)`.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> (consumed: Int, response: (head: HTTPResponseHead, body: [UInt8])?) {
        if let failure { throw failure }
        do {
            return try parseMessage(bytes)
        } catch {
            failure = error
            throw error
        }
    }

    /// Call when the peer closed the connection. Completes a close-delimited body; returns
    /// nil when no response was in progress.
    /// - Throws: 400 when the connection closed in the middle of a head or framed body.
    public mutating func finish() throws(HTTPParseError) -> (head: HTTPResponseHead, body: [UInt8])? {
        if let failure { throw failure }
        if let head = pendingHead, bodyReader.isUntilClose {
            pendingHead = nil
            return (head, bodyReader.takeBody())
        }
        guard pendingHead == nil, headReader.isIdle else {
            failure = .badRequest("connection closed before the response was complete")
            throw failure!
        }
        return nil
    }

    /// Drops any partial response and a remembered error.
    public mutating func reset() {
        headReader.reset()
        _ = bodyReader.takeBody()
        pendingHead = nil
        failure = nil
    }

    private mutating func parseMessage(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> (consumed: Int, response: (head: HTTPResponseHead, body: [UInt8])?) {
        var consumed = 0
        if pendingHead == nil {
            let (count, complete) = try headReader.feed(bytes, from: 0)
            consumed = count
            guard complete else { return (consumed, nil) }
            let head = try makeHead()
            headReader.reset()
            let framing: HTTPBodyFraming = HTTPStatus.forbidsBody(head.status)
                ? .none
                : try HTTPBodyFraming.from(head.headers, versionMinor: 1, limits: limits, otherwise: .untilClose)
            bodyReader.start(framing)
            pendingHead = head
        }
        let (count, complete) = try bodyReader.feed(bytes, from: consumed)
        consumed += count
        guard complete, let head = pendingHead else { return (consumed, nil) }
        pendingHead = nil
        return (consumed, (head, bodyReader.takeBody()))
    }

    /// RFC 9112 §4: status-line = HTTP-version SP status-code SP [ reason-phrase ]
    /// (a missing SP before an empty reason is tolerated, as many servers omit it).
    private func makeHead() throws(HTTPParseError) -> HTTPResponseHead {
        let line = headReader.startLine
        let start = line.startIndex
        guard line.count >= 12, line[start + 8] == ASCII.space else {
            throw .badRequest("malformed status line")
        }
        _ = try HTTPVersion.parseMinor(line[start..<(start + 8)])
        var status = 0
        for byte in line[(start + 9)..<(start + 12)] {
            guard ASCII.isDigit(byte) else { throw .badRequest("malformed status code") }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        var reason: ArraySlice<UInt8> = []
        if line.count > 12 {
            guard line[start + 12] == ASCII.space else { throw .badRequest("malformed status line") }
            reason = line[(start + 13)...]
            guard reason.allSatisfy(ASCII.isFieldValueChar) else {
                throw .badRequest("invalid character in reason phrase")
            }
        }
        return HTTPResponseHead(
            status: status,
            reason: String(decoding: reason, as: UTF8.self),
            headers: try headReader.headers()
        )
    }
}
