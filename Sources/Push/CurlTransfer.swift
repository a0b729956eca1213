import CCurl
import Metrics

/// One libcurl easy handle with its request headers and response buffers.
///
/// Owned by the ``PushDispatcher`` thread from creation to completion; never touched elsewhere,
/// which is why it needs no locking. libcurl's callbacks reach it through an unretained pointer:
/// the dispatcher's table of active transfers keeps it alive until the handle is removed.
final class CurlTransfer {
    let easy: UnsafeMutableRawPointer
    let completion: @Sendable (PushTransportResult) -> Void
    /// When the transfer was made (just before libcurl starts it), `MetricsClock` µs: for the request-latency histogram.
    let startedAt = MetricsClock.microseconds()
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var responseHeaders: [(name: String, value: String)] = []
    private var body: [UInt8] = []
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private let maximumBody: Int

    /// Creates and configures the easy handle; nil when libcurl refuses an option (e.g. a bad URL scheme).
    init?(request: PushHTTPRequest, maximumBody: Int, completion: @escaping @Sendable (PushTransportResult) -> Void) {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        self.completion = completion
        self.maximumBody = maximumBody
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        guard configure(request) else {
            release()
            return nil
        }
    }

    private func configure(_ request: PushHTTPRequest) -> Bool {
        var ok = true
        func check(_ code: CURLcode) { if code != CURLE_OK { ok = false } }
        check(ccurl_easy_set_string(easy, CURLOPT_URL, request.url))
        // Restrict to the two schemes we mean; libcurl would otherwise also speak file://, ftp://…
        check(ccurl_easy_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        check(ccurl_easy_set_long(easy, CURLOPT_HTTP_VERSION, CCURL_HTTP_VERSION_2TLS))
        // Wait for an existing connection to confirm HTTP/2 and multiplex on it instead of
        // opening a second one (APNs asks providers to reuse connections).
        check(ccurl_easy_set_long(easy, CURLOPT_PIPEWAIT, 1))
        // Signals are process-wide; libcurl must not use them for timeouts on our thread.
        check(ccurl_easy_set_long(easy, CURLOPT_NOSIGNAL, 1))
        check(ccurl_easy_set_long(easy, CURLOPT_TIMEOUT_MS, max(1, request.timeoutMilliseconds)))
        check(ccurl_easy_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, min(request.timeoutMilliseconds, 10_000))))
        check(ccurl_easy_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        if let caFile = request.caFile { check(ccurl_easy_set_string(easy, CURLOPT_CAINFO, caFile)) }
        if request.method == "POST" {
            check(ccurl_easy_set_long(easy, CURLOPT_POST, 1))
        } else {
            check(ccurl_easy_set_string(easy, CURLOPT_CUSTOMREQUEST, request.method))
        }
        if request.method == "POST" || !request.body.isEmpty {
            // The size must be set before COPYPOSTFIELDS so binary bodies are copied whole.
            check(ccurl_easy_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
            // An empty body has no base address; any valid pointer does, since 0 bytes are copied.
            check(request.body.withUnsafeBytes { raw in
                ccurl_easy_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(errorBuffer)))
            })
        }
        // CR, LF or NUL in a header would let a caller-supplied value (collapse id, webhook id)
        // smuggle extra header lines onto the HTTP/1.1 wire.
        let forbidden: Set<UInt8> = [0x00, 0x0A, 0x0D]
        if request.headers.contains(where: { $0.name.utf8.contains(where: forbidden.contains) || $0.value.utf8.contains(where: forbidden.contains) }) {
            return false
        }
        // An empty "Expect:" stops libcurl's 100-continue round trip on HTTP/1.1 bodies over 1 KiB.
        for line in request.headers.map({ "\($0.name): \($0.value)" }) + ["Expect:"] {
            guard let appended = curl_slist_append(headerList, line) else { ok = false; break }
            headerList = appended
        }
        check(ccurl_easy_set_slist(easy, CURLOPT_HTTPHEADER, headerList))
        let context = Unmanaged.passUnretained(self).toOpaque()
        check(ccurl_easy_set_callback(easy, CURLOPT_WRITEFUNCTION, { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveBody(data, size * count)
        }))
        check(ccurl_easy_set_pointer(easy, CURLOPT_WRITEDATA, context))
        check(ccurl_easy_set_callback(easy, CURLOPT_HEADERFUNCTION, { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveHeader(data, size * count)
        }))
        check(ccurl_easy_set_pointer(easy, CURLOPT_HEADERDATA, context))
        return ok
    }

    private func receiveBody(_ data: UnsafeMutablePointer<CChar>?, _ length: Int) -> Int {
        guard let data, length > 0 else { return length }
        let room = max(0, maximumBody - body.count)
        // Excess bytes are dropped but reported as consumed so the transfer still completes.
        data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: min(room, length)))
        }
        return length
    }

    private func receiveHeader(_ data: UnsafeMutablePointer<CChar>?, _ length: Int) -> Int {
        guard let data, length > 0 else { return length }
        let line = data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
        if line.hasPrefix("HTTP/") {
            // A new status line: headers of an interim (1xx) response before it are discarded.
            responseHeaders.removeAll()
            return length
        }
        guard let colon = line.firstIndex(of: ":") else { return length }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        responseHeaders.append((name: name, value: value))
        return length
    }

    /// The outcome after libcurl reported the transfer done with `code`.
    func result(_ code: CURLcode) -> PushTransportResult {
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            let summary = String(cString: curl_easy_strerror(code))
            let message = detail.isEmpty ? summary : "\(summary): \(detail)"
            // These cannot succeed on a later attempt: the request, not the network, is at fault.
            if code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT { return .invalidRequest(message: message) }
            return .failure(message: message)
        }
        var status = 0
        _ = ccurl_easy_get_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .response(PushHTTPResponse(status: status, headers: responseHeaders, body: body))
    }

    /// Frees the handle and header list; the transfer must already be out of the multi handle.
    func release() {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        headerList = nil
        errorBuffer.deallocate()
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs, CR and LF.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
