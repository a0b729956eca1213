import JSON

/// A response to serialize (server side). Value type, `Sendable`; build it on any thread,
/// serialize it on the connection's thread.
public struct HTTPResponse: Sendable, Equatable {
    /// Status code, e.g. 200. The reason phrase comes from `HTTPStatus.reasonPhrase`.
    public var status: Int
    /// Headers written in order; Content-Length and Connection are added by `serialize`.
    public var headers: HTTPHeaders
    /// Body bytes; dropped by `serialize` for 1xx/204/304, which must not carry content.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = .init(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Status line + headers (+ Content-Length unless status is 1xx/204/304 or already set)
    /// + body. `keepAlive: false` adds "Connection: close" (unless a Connection header
    /// already says close). Always HTTP/1.1. CR, LF and NUL inside header names or values
    /// are written as spaces, so a header can never inject another line.
    /// `headersOnly` answers a HEAD request (RFC 9110 §9.3.2): the same header section as the GET response,
    /// Content-Length included, and no body (a body would be read as the start of the next response).
    public func serialize(keepAlive: Bool, headersOnly: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128 + headers.count * 32 + body.count)
        output += Array("HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\n".utf8)
        for field in headers {
            Self.appendField(field.name, field.value, to: &output)
        }
        let bodyless = HTTPStatus.forbidsBody(status)
        if !bodyless && !headers.contains("Content-Length") {
            Self.appendField("Content-Length", String(body.count), to: &output)
        }
        if !keepAlive && !headers.containsToken("close", in: "Connection") {
            Self.appendField("Connection", "close", to: &output)
        }
        output += [ASCII.cr, ASCII.lf]
        if !bodyless && !headersOnly { output += body }
        return output
    }

    /// The interim `100 Continue` (RFC 9110 §15.2.1) that tells a client sending `Expect: 100-continue` to send its body.
    public static let continueInterim: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// JSON error body: {"error":{"status":400,"code":"<code>","message":"<message>"}} with
    /// Content-Type application/json; `code` and `message` are JSON-escaped.
    public static func jsonError(status: Int, code: String, message: String, extraHeaders: HTTPHeaders = .init()) -> HTTPResponse {
        let json = "{\"error\":{\"status\":\(status),\"code\":\(JSONString.quoted(code)),\"message\":\(JSONString.quoted(message))}}"
        var headers = HTTPHeaders([(name: "Content-Type", value: "application/json")])
        for field in extraHeaders { headers.add(name: field.name, value: field.value) }
        return HTTPResponse(status: status, headers: headers, body: Array(json.utf8))
    }

    /// A response whose body is `text` in UTF-8 with the given Content-Type.
    public static func text(status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([(name: "Content-Type", value: contentType)]), body: Array(text.utf8))
    }

    private static func appendField(_ name: String, _ value: String, to output: inout [UInt8]) {
        appendSanitized(name, to: &output)
        output += [ASCII.colon, ASCII.space]
        appendSanitized(value, to: &output)
        output += [ASCII.cr, ASCII.lf]
    }

    private static func appendSanitized(_ string: String, to output: inout [UInt8]) {
        for byte in string.utf8 {
            output.append(byte == ASCII.cr || byte == ASCII.lf || byte == 0 ? ASCII.space : byte)
        }
    }
}
