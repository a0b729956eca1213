/// The `[http]` section: limits of the HTTP/1.1 request parser that precedes every upgrade.
///
/// A request over any limit is rejected and its connection closed.
public struct HTTPSection: Sendable, Equatable {
    /// `http.max_request_line_bytes`: longest request line, e.g. `GET /path HTTP/1.1` (64...1048576).
    public var maxRequestLineBytes: Int = 8192
    /// `http.max_header_bytes`: all header lines together (256...16777216).
    public var maxHeaderBytes: Int = 16384
    /// `http.max_header_count`: number of header fields (1...10000).
    public var maxHeaderCount: Int = 100
    /// `http.max_body_bytes`: largest request body of the plain HTTP endpoints (0...1073741824).
    public var maxBodyBytes: Int = 1_048_576
    /// `http.keep_alive_timeout_ms`: idle time between requests before closing; 0 closes after
    /// each response (0...3600000).
    public var keepAliveTimeoutMs: Int = 30000
    /// `http.cors_allowed_origins`: `"auto"` or a list of origins allowed to call the browser endpoints from
    /// another origin (see ``CORSOrigins``).
    public var corsAllowedOrigins: CORSOrigins = .auto

    /// The embedded defaults.
    public init() {}
}
