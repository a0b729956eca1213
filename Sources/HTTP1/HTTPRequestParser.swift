/// Incremental request parser for one connection (pipelining-safe). Not thread-safe: own one
/// per connection and call it from that connection's event-loop thread only.
///
/// Feed it bytes as they arrive; it buffers at most one message head plus one body, both
/// bounded by `HTTPLimits`. Strict about framing (RFC 9112): lines must end in CRLF (a bare
/// LF is a 400), obs-fold and whitespace before a colon are 400s. `Host` is not checked here:
/// routing (and the WebSocket handshake) decide what a missing Host means.
/// After an error the parser keeps throwing it until `reset()`; the caller should answer
/// with `error.status` and close, because the byte stream can no longer be framed.
public struct HTTPRequestParser {
    private let limits: HTTPLimits
    private var headReader: HTTPHeadReader
    private var bodyReader: HTTPBodyReader
    /// The head whose body is being read, if any.
    private var pendingHead: HTTPRequestHead?
    private var failure: HTTPParseError?

    /// Creates a parser that enforces `limits`.
    public init(limits: HTTPLimits = .init()) {
        self.limits = limits
        headReader = HTTPHeadReader(
            limits: limits,
            startLineTooLong: HTTPParseError(status: 414, message: "request line longer than \(limits.maxRequestLineBytes) bytes")
        )
        bodyReader = HTTPBodyReader(limits: limits)
    }

    /// True when no partial request is buffered (a safe point to close an idle connection).
    public var isIdle: Bool { pendingHead == nil && headReader.isIdle && failure == nil }

    /// True once a head is complete and its body is still being read (the server gives the body its own deadline).
    public var isReadingBody: Bool { pendingHead != nil }

    /// The head whose body is being read (nil otherwise): what the server decides on before the body arrives
    /// (`Expect: 100-continue`).
    public var headAwaitingBody: HTTPRequestHead? { pendingHead }

    /// Consumes bytes up to the end of at most ONE request; returns the count consumed and the
    /// request when complete.
    ///
    /// Bytes after a complete request are NOT consumed (they may be the next pipelined
    /// request, or WebSocket frames after an upgrade): call again with the rest. Partial
    /// input is buffered and reported as `(bytes.count, nil)`. After a request is returned
    /// the parser is ready for the next one.
    /// - Throws: `HTTPParseError` — 400 malformed, 413 body too large, 414 request line too
    ///   long, 431 header section too large or too many fields, 501 unsupported
    ///   Transfer-Encoding, 505 HTTP version other than 1.0/1.1.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> (consumed: Int, request: HTTPRequest?) {
        if let failure { throw failure }
        do {
            return try parseMessage(bytes)
        } catch {
            failure = error
            throw error
        }
    }

    /// Drops any partial request and a remembered error; the next byte starts a new request.
    public mutating func reset() {
        headReader.reset()
        _ = bodyReader.takeBody()
        pendingHead = nil
        failure = nil
    }

    private mutating func parseMessage(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> (consumed: Int, request: HTTPRequest?) {
        var consumed = 0
        if pendingHead == nil {
            let (count, complete) = try headReader.feed(bytes, from: 0)
            consumed = count
            guard complete else { return (consumed, nil) }
            let head = try makeHead()
            headReader.reset()
            bodyReader.start(try HTTPBodyFraming.from(
                head.headers, versionMinor: head.versionMinor, limits: limits, otherwise: .none
            ))
            pendingHead = head
        }
        let (count, complete) = try bodyReader.feed(bytes, from: consumed)
        consumed += count
        guard complete, let head = pendingHead else { return (consumed, nil) }
        pendingHead = nil
        return (consumed, HTTPRequest(head: head, body: bodyReader.takeBody()))
    }

    /// RFC 9112 §3: request-line = method SP request-target SP HTTP-version
    private func makeHead() throws(HTTPParseError) -> HTTPRequestHead {
        let line = headReader.startLine
        var index = line.startIndex
        while index < line.endIndex && ASCII.isTokenChar(line[index]) { index += 1 }
        let methodEnd = index
        guard methodEnd > line.startIndex, index < line.endIndex, line[index] == ASCII.space else {
            throw .badRequest("malformed request line")
        }
        index += 1
        let targetStart = index
        while index < line.endIndex && ASCII.isVisible(line[index]) { index += 1 }
        let targetEnd = index
        guard targetEnd > targetStart, index < line.endIndex, line[index] == ASCII.space else {
            throw .badRequest("malformed request line")
        }
        let versionMinor = try HTTPVersion.parseMinor(line[(index + 1)...])
        return HTTPRequestHead(
            method: String(decoding: line[line.startIndex..<methodEnd], as: UTF8.self),
            target: String(decoding: line[targetStart..<targetEnd], as: UTF8.self),
            versionMinor: versionMinor,
            headers: try headReader.headers()
        )
    }
}

/// RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT
enum HTTPVersion {
    /// The minor version of an "HTTP/1.x" token: 400 when it is not a version at all,
    /// 505 when it is a version other than 1.0 or 1.1.
    static func parseMinor(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        let prefix = Array("HTTP/".utf8)
        guard bytes.count == 8, bytes.prefix(5).elementsEqual(prefix),
              ASCII.isDigit(bytes[bytes.startIndex + 5]),
              bytes[bytes.startIndex + 6] == UInt8(ascii: "."),
              ASCII.isDigit(bytes[bytes.startIndex + 7]) else {
            throw .badRequest("malformed HTTP version")
        }
        let major = bytes[bytes.startIndex + 5]
        let minor = bytes[bytes.startIndex + 7]
        guard major == UInt8(ascii: "1"), minor <= UInt8(ascii: "1") else {
            throw HTTPParseError(status: 505, message: "only HTTP/1.0 and HTTP/1.1 are supported")
        }
        return Int(minor - UInt8(ascii: "0"))
    }
}
