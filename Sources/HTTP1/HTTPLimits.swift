/// Size limits a parser enforces while bytes stream in, so a peer can never make it buffer
/// more than roughly `maxRequestLineBytes + maxHeaderBytes + maxBodyBytes` per message.
///
/// Value type, `Sendable`; the same limits apply to the request and the response parser.
public struct HTTPLimits: Sendable, Equatable {
    /// Longest request line (status line for responses), CRLF excluded. Exceeding it → 414.
    public var maxRequestLineBytes: Int
    /// Largest header section after the request line, every CRLF and the final blank line
    /// included; also bounds chunked trailers. Exceeding it → 431.
    public var maxHeaderBytes: Int
    /// Most header field lines in one message. Exceeding it → 431.
    public var maxHeaderCount: Int
    /// Largest decoded body (Content-Length or the sum of chunk sizes). Exceeding it → 413.
    public var maxBodyBytes: Int

    /// Defaults: 8 KiB request line, 16 KiB of headers, 100 header lines, 1 MiB body.
    public init(
        maxRequestLineBytes: Int = 8192,
        maxHeaderBytes: Int = 16384,
        maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1 << 20
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}
