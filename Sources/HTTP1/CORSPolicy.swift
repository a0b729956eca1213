/// The CORS answers (Fetch standard, "CORS protocol") of endpoints a web page on another origin calls with `fetch`:
/// which origins may read the responses, and the preflight a browser sends first for a JSON body or an
/// `Authorization` header. Pure: the caller supplies the request's `Origin` and the route's methods.
public struct CORSPolicy: Sendable, Equatable {
    /// Exact origins (`https://app.example.com`, compared case-insensitively), or `*` for any; empty for none.
    public let allowedOrigins: [String]
    /// The request headers a page may send: the browser endpoints take a JSON body and a bearer token.
    public static let allowedHeaders = "Authorization, Content-Type"
    /// How long a browser may cache a preflight answer, in seconds: short, so a changed list takes effect soon.
    public static let maxAgeSeconds = 600

    /// Creates a policy.
    public init(allowedOrigins: [String]) {
        self.allowedOrigins = allowedOrigins
    }

    /// Whether a page on `origin` may read the responses.
    public func allows(origin: String) -> Bool {
        allowedOrigins.contains { $0 == "*" || ASCII.equalsIgnoringCase($0, origin) }
    }

    /// Headers for the response to an actual (non-preflight) request: `Access-Control-Allow-Origin` naming the
    /// request's origin when it is allowed, and always `Vary: Origin`, because the answer depends on that header
    /// (a shared cache must not hand one origin's answer to another).
    public func responseHeaders(origin: String?) -> HTTPHeaders {
        var headers = HTTPHeaders([(name: "Vary", value: "Origin")])
        if let origin, allows(origin: origin) { headers.add(name: "Access-Control-Allow-Origin", value: origin) }
        return headers
    }

    /// The answer to `OPTIONS` on a route that accepts `methods`: 204 with the allowed methods, headers and max age
    /// for an allowed origin; 403 `origin_not_allowed` for another origin (the browser then refuses the request);
    /// a plain 204 with `Allow` when there is no `Origin` (not a preflight).
    public func preflight(origin: String?, methods: [String]) -> HTTPResponse {
        let allowed = (methods + ["OPTIONS"]).joined(separator: ", ")
        guard let origin else { return HTTPResponse(status: 204, headers: HTTPHeaders([(name: "Allow", value: allowed)])) }
        guard allows(origin: origin) else {
            return .jsonError(status: 403, code: "origin_not_allowed",
                              message: "origin \(origin) may not call this endpoint: add it to http.cors_allowed_origins",
                              extraHeaders: HTTPHeaders([(name: "Vary", value: "Origin")]))
        }
        var headers = responseHeaders(origin: origin)
        headers.add(name: "Access-Control-Allow-Methods", value: allowed)
        headers.add(name: "Access-Control-Allow-Headers", value: Self.allowedHeaders)
        headers.add(name: "Access-Control-Max-Age", value: String(Self.maxAgeSeconds))
        return HTTPResponse(status: 204, headers: headers)
    }
}
