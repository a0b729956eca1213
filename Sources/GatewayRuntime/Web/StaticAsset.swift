import HTTP1
import Server

/// A file compiled into the binary (so a release binary serves it from any working directory), answered with an
/// ETag: browsers revalidate with `If-None-Match` and get `304` while the binary is unchanged.
struct StaticAsset: Sendable {
    let body: [UInt8]
    let contentType: String
    /// A strong validator derived from the bytes (SHA-1 here only names a version, it protects nothing).
    let etag: String
    /// Extra headers, e.g. CORS for the client module (module scripts are fetched in CORS mode).
    let extraHeaders: [(String, String)]

    init(_ text: String, contentType: String, extraHeaders: [(String, String)] = []) {
        body = Array(text.utf8)
        self.contentType = contentType
        self.extraHeaders = extraHeaders
        let digits = Array("0123456789abcdef".utf8)
        etag = "\"" + String(decoding: SHA1.hash(body).prefix(10).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self) + "\""
    }

    /// `GET`/`HEAD` → 200 (or 304 when `If-None-Match` names this version); other methods → 405. A HEAD gets the
    /// same response: the server leaves the body out of every HEAD response.
    func response(to head: HTTPRequestHead) -> HTTPResponse {
        guard head.method == "GET" || head.method == "HEAD" else {
            return .jsonError(status: 405, code: "method_not_allowed", message: "\(head.method) is not allowed on \(head.path)",
                              extraHeaders: HTTPHeaders([("Allow", "GET, HEAD")]))
        }
        // no-cache = store, but ask every time: the path is stable while the content changes with the server version.
        var headers = HTTPHeaders([("Content-Type", contentType), ("Cache-Control", "no-cache"), ("ETag", etag),
                                   ("X-Content-Type-Options", "nosniff")])
        for (name, value) in extraHeaders { headers.add(name: name, value: value) }
        if let candidates = head.headers["If-None-Match"], Self.matches(candidates, etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers, body: body)
    }

    /// RFC 9110 §13.1.2: `*` or a comma-separated list of entity tags (weak comparison).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.trimmingSpaces
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "*" || tag == etag
        }
    }
}
