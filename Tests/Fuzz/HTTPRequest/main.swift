// Fuzz target: HTTPRequestParser over an arbitrary byte stream (pipelined requests), then what the server does
// with a parsed head (keep-alive, query items, the WebSocket upgrade check). Compiled into the HTTP1 module.
//
// Input: byte 0 picks the limits (the defaults or tiny ones, so every limit is reachable), byte 1 how the stream
// is cut into reads; the rest is the stream. Invariants checked beyond "no crash":
// - `parse` consumes a prefix of its input and always makes progress (no request and nothing consumed only when
//   there was nothing to consume);
// - errors carry one of the documented statuses, and the parser keeps throwing the same error afterwards;
// - bodies stay within the body limit and the request line within its limit;
// - feeding the stream in pieces gives the same requests and the same error as feeding it at once.

private struct Outcome: Equatable {
    var requests: [HTTPRequest] = []
    var error: HTTPParseError?
}

private func parse(_ reads: [ArraySlice<UInt8>], limits: HTTPLimits) -> Outcome {
    var parser = HTTPRequestParser(limits: limits)
    var outcome = Outcome()
    for read in reads {
        var rest = Array(read)
        while !rest.isEmpty {
            let result: (consumed: Int, request: HTTPRequest?)
            switch feed(&parser, rest) {
            case .success(let parsed):
                result = parsed
            case .failure(let error):
                fuzzRequire([400, 413, 414, 431, 501, 505].contains(error.status), "undocumented status \(error.status)")
                if case .failure(let again) = feed(&parser, Array("GET / HTTP/1.1\r\n\r\n".utf8)) {
                    fuzzRequire(again == error, "a failed parser threw another error next time")
                } else {
                    fuzzRequire(false, "a failed parser parsed again")
                }
                outcome.error = error
                return outcome
            }
            fuzzRequire(result.consumed >= 0 && result.consumed <= rest.count, "consumed \(result.consumed) of \(rest.count)")
            fuzzRequire(result.consumed > 0 || result.request != nil, "no progress on \(rest.count) bytes")
            if let request = result.request {
                check(request, limits: limits)
                outcome.requests.append(request)
            }
            rest.removeFirst(result.consumed)
        }
    }
    return outcome
}

private func check(_ request: HTTPRequest, limits: HTTPLimits) {
    let head = request.head
    fuzzRequire(request.body.count <= limits.maxBodyBytes, "body of \(request.body.count) bytes over the limit")
    fuzzRequire(head.method.utf8.count + head.target.utf8.count + 10 <= limits.maxRequestLineBytes,
                "request line over the limit")
    fuzzRequire(head.headers.count <= limits.maxHeaderCount, "\(head.headers.count) header fields over the limit")
    fuzzRequire(head.versionMinor == 0 || head.versionMinor == 1, "HTTP/1.\(head.versionMinor)")
    fuzzRequire(!head.method.isEmpty && !head.target.isEmpty, "empty method or target")
    // What the server reads from every request: none of it may trap.
    _ = head.keepAlive
    _ = head.queryItem("token")
    _ = head.queryItem("")
    // Path segments are decoded strictly: never empty, and a path without escapes decodes to itself.
    if let segments = head.pathSegments() {
        fuzzRequire(!segments.contains(""), "an empty path segment")
        if !head.path.utf8.contains(UInt8(ascii: "%")), let raw = String(validating: Array(head.path.utf8), as: UTF8.self) {
            fuzzRequire(segments == raw.split(separator: "/").map(String.init), "a path without escapes changed when decoded")
        }
    } else {
        fuzzRequire(head.path.utf8.contains(UInt8(ascii: "%")), "a path without escapes refused")
    }
    if WebSocketHandshake.isUpgradeAttempt(head) {
        let policy = WebSocketUpgradePolicy(allowedOrigins: ["https://example.com"], supportedSubprotocols: ["switchboard.v1"])
        if case .success(let upgrade) = WebSocketHandshake.validate(head, policy: policy) {
            _ = WebSocketHandshake.switchingProtocolsResponse(for: upgrade, extensionsHeader: nil)
        }
    }
}

private func feed(_ parser: inout HTTPRequestParser, _ bytes: [UInt8]) -> Result<(consumed: Int, request: HTTPRequest?), HTTPParseError> {
    bytes.withUnsafeBytes { raw in Result { () throws(HTTPParseError) in try parser.parse(raw) } }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequest(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limits = input.byte() & 1 == 0
        ? HTTPLimits()
        : HTTPLimits(maxRequestLineBytes: 64, maxHeaderBytes: 256, maxHeaderCount: 4, maxBodyBytes: 100)
    let cut = input.byte()
    let stream = input.rest

    let whole = parse([stream[...]], limits: limits)
    let sizes = [Int(cut & 0x0F) + 1, Int(cut >> 4) * 7 + 1]
    let split = parse(pieces(of: stream, sizes: sizes), limits: limits)
    fuzzRequire(whole == split, "the stream parsed differently when it arrived in pieces \(sizes)")
    return 0
}
