/// The request line and headers of one request (RFC 9112 §3).
///
/// Value type, `Sendable`. The parser fills every field; `init` lets callers build one
/// directly (tests, the server's internal routing).
public struct HTTPRequestHead: Sendable, Equatable {
    /// Method token exactly as received, e.g. "GET" (methods are case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// The raw request-target, e.g. "/rooms/1?since=5".
    public var target: String
    /// `target` before the first '?', not percent-decoded.
    public var path: String
    /// `target` after the first '?', not decoded; nil when there is no '?'.
    public var query: String?
    /// 0 for HTTP/1.0, 1 for HTTP/1.1 (the only versions the parser accepts).
    public var versionMinor: Int
    /// Header fields in arrival order.
    public var headers: HTTPHeaders
    /// The client's address (IPv4 or IPv6 text) as the server determined it — the TCP peer, or the client a trusted
    /// proxy names in `X-Forwarded-For` — for per-address limits. Never read from the request bytes: nil until the
    /// server sets it.
    public var sourceAddress: String? = nil

    /// Creates a head, splitting `target` into `path` and `query` at the first '?'.
    public init(method: String, target: String, versionMinor: Int = 1, headers: HTTPHeaders = .init()) {
        self.method = method
        self.target = target
        self.versionMinor = versionMinor
        self.headers = headers
        if let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = String(target[..<mark])
            query = String(target[target.utf8.index(after: mark)...])
        } else {
            path = target
            query = nil
        }
    }

    /// RFC 9112 §9.3: HTTP/1.1 stays open unless "Connection: close"; HTTP/1.0 only with
    /// "Connection: keep-alive".
    public var keepAlive: Bool {
        if versionMinor >= 1 {
            return !headers.containsToken("close", in: "Connection")
        }
        return headers.containsToken("keep-alive", in: "Connection")
    }

    /// True when the client waits for `100 Continue` before it sends the body (RFC 9110 §10.1.1: `Expect: 100-continue`,
    /// case-insensitive). An HTTP/1.0 request's expectation is ignored, as the RFC requires.
    public var expectsContinue: Bool {
        versionMinor >= 1 && headers.containsToken("100-continue", in: "Expect")
    }

    /// The path's segments between '/'s (empty ones dropped), each percent-decoded; nil when a segment has a
    /// malformed escape (`%` not followed by two hex digits) or decodes to bytes that are not UTF-8. Routing on
    /// decoded segments makes `/v1/users/o%27neil` and `/v1/users/o'neil` the same resource.
    public func pathSegments() -> [String]? {
        var segments: [String] = []
        for raw in path.utf8.split(separator: UInt8(ascii: "/")) {
            guard let segment = PercentDecoding.decodeStrictly(raw) else { return nil }
            segments.append(segment)
        }
        return segments
    }

    /// The first value of query parameter `name`, percent-decoded (and '+' read as a space,
    /// as HTML forms encode it); "" for a bare `name` without '='; nil when absent.
    /// Names are compared after decoding. Malformed %-escapes are kept literally.
    public func queryItem(_ name: String) -> String? {
        guard let query else { return nil }
        for item in query.utf8.split(separator: UInt8(ascii: "&")) {
            let pair = item.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard PercentDecoding.decode(pair[0]) == name else { continue }
            return pair.count > 1 ? PercentDecoding.decode(pair[1]) : ""
        }
        return nil
    }
}

/// A complete request: head plus the decoded body (de-chunked when it was chunked).
public struct HTTPRequest: Sendable, Equatable {
    /// Request line and headers.
    public var head: HTTPRequestHead
    /// Body bytes; empty when the request had none. At most `HTTPLimits.maxBodyBytes`.
    public var body: [UInt8]

    /// Creates a request from its parts.
    public init(head: HTTPRequestHead, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }
}

/// RFC 3986 §2.1 percent-decoding, for query components (lenient) and path segments (strict).
enum PercentDecoding {
    /// A query component: '+' is a space; malformed escapes are kept literally and invalid UTF-8 becomes U+FFFD
    /// (the caller just sees an odd value).
    static func decode(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: decode(bytes, plusIsSpace: true, strict: false)!, as: UTF8.self)
    }

    /// A path segment: '+' is itself; nil for a '%' not followed by two hex digits or a result that is not UTF-8.
    static func decodeStrictly(_ bytes: some Collection<UInt8>) -> String? {
        guard let output = decode(bytes, plusIsSpace: false, strict: true) else { return nil }
        return String(validating: output, as: UTF8.self)
    }

    private static func decode(_ bytes: some Collection<UInt8>, plusIsSpace: Bool, strict: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            if byte == UInt8(ascii: "+"), plusIsSpace {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index != bytes.endIndex,
                      bytes.index(after: index) != bytes.endIndex,
                      let high = ASCII.hexValue(bytes[index]),
                      let low = ASCII.hexValue(bytes[bytes.index(after: index)]) {
                output.append(high << 4 | low)
                index = bytes.index(index, offsetBy: 2)
            } else if byte == UInt8(ascii: "%"), strict {
                return nil
            } else {
                output.append(byte)
            }
        }
        return output
    }
}
