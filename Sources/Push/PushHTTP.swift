import JSON

/// One HTTP request handed to a ``PushDispatcher``. A value: the dispatcher copies what it needs.
public struct PushHTTPRequest: Sendable {
    /// `POST` for every provider; other methods go out as a custom request line.
    public var method: String
    /// Absolute `https://` (HTTP/2 via ALPN) or `http://` (HTTP/1.1, tests and webhooks) URL.
    public var url: String
    /// Request headers in order; names are sent as given (HTTP/2 lower-cases them on the wire).
    public var headers: [(name: String, value: String)]
    /// The request body, sent as is (no chunking).
    public var body: [UInt8]
    /// Whole-transfer timeout, connection set-up included.
    public var timeoutMilliseconds: Int
    /// PEM bundle of trusted CAs replacing the system store (tests trust their own certificate).
    public var caFile: String?

    public init(
        method: String = "POST", url: String, headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], timeoutMilliseconds: Int = 15_000, caFile: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
        self.caFile = caFile
    }
}

/// A complete HTTP response as the dispatcher received it.
public struct PushHTTPResponse: Sendable {
    /// The final status code (interim 1xx responses are dropped).
    public let status: Int
    /// Response headers of the final response, names lower-cased, in arrival order.
    public let headers: [(name: String, value: String)]
    /// The body, capped at ``PushDispatcher/maximumResponseBytes`` (provider error bodies are tiny).
    public let body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }

    /// The body parsed as JSON, or nil when it is empty or not JSON.
    public var json: JSONValue? {
        body.isEmpty ? nil : try? JSONValue.parse(body)
    }
}

/// How a transfer ended: a response of any status, or no response at all.
public enum PushTransportResult: Sendable {
    /// The server answered (any status code).
    case response(PushHTTPResponse)
    /// No usable response: DNS, connect, TLS, timeout, reset, or the dispatcher stopped.
    /// `message` is libcurl's error text, safe to log.
    case failure(message: String)
    /// The request itself is unusable (bad URL or scheme, CR/LF in a header): sending it again
    /// cannot help, so clients report it as `.rejected(status: 0, …)`.
    case invalidRequest(message: String)
}

extension JSONValue {
    /// Member `name` of an object, else nil.
    subscript(member name: String) -> JSONValue? {
        if case .object(let members) = self { return members[name] }
        return nil
    }
}
