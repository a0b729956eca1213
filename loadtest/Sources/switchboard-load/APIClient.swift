import EventLoop
import Glibc
import HTTP1

/// A blocking HTTP/1.1 client for the server API (`/v1/…` with `Authorization: Bearer <api key>`), one keep-alive
/// TCP connection, reconnected once when the server closed it between requests.
///
/// Thread/ownership: used by one backend thread at a time (never on an event loop: calls block for a round trip).
/// Limits: responses up to 1 MiB; each send/receive waits at most `timeoutSeconds`.
/// Errors: `APIClient.Failure` with a short kind for the report ("api_connect", "api_timeout", "api_bad_response").
final class APIClient {
    /// A failed exchange; `kind` becomes the error kind in the report.
    struct Failure: Error, Equatable {
        var kind: String
    }

    /// One response: status and body bytes.
    struct Response: Sendable {
        var status: Int
        var body: [UInt8]
    }

    private let address: SocketAddress
    private let hostHeader: String
    private let apiKey: String
    private let timeoutSeconds: Int
    private var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(address: SocketAddress, hostHeader: String, apiKey: String, timeoutSeconds: Int = 10) {
        self.address = address
        self.hostHeader = hostHeader
        self.apiKey = apiKey
        self.timeoutSeconds = timeoutSeconds
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Sends `method path` with an optional JSON body and returns the response (any status).
    func send(_ method: String, _ path: String, json body: String? = nil) throws(Failure) -> Response {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nAuthorization: Bearer \(apiKey)\r\n"
        if let body {
            request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        } else {
            request += "Content-Length: 0\r\n\r\n"
        }
        let bytes = Array(request.utf8)
        let reused = fd >= 0
        do {
            return try exchange(bytes)
        } catch {
            disconnect()
            // A kept-alive connection may have been closed by the server just before we wrote: retry once on a
            // fresh one. Should the first attempt have been processed after all, a duplicated approval request is
            // reported (an approval without a confirmed POST); a duplicated publish only adds one in-order event.
            guard reused, error.kind == "api_closed" else { throw error }
            return try exchange(bytes)
        }
    }

    private func exchange(_ request: [UInt8]) throws(Failure) -> Response {
        if fd < 0 { try connect() }
        var written = 0
        while written < request.count {
            let n = request[written...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(kind: errno == EAGAIN ? "api_timeout" : "api_closed") }
            written += n
        }
        var parser = HTTPResponseParser()
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw Failure(kind: errno == EAGAIN ? "api_timeout" : "api_closed") }
            if n == 0 {
                if let response = try? parser.finish() { return try finish(response, keepAlive: false) }
                throw Failure(kind: "api_closed")
            }
            let parsed: (consumed: Int, response: (head: HTTPResponseHead, body: [UInt8])?)
            do {
                parsed = try buffer.withUnsafeBytes { try parser.parse(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            } catch {
                throw Failure(kind: "api_bad_response")
            }
            if let response = parsed.response {
                let close = response.head.headers.containsToken("close", in: "Connection")
                return try finish(response, keepAlive: !close)
            }
        }
    }

    private func finish(_ response: (head: HTTPResponseHead, body: [UInt8]), keepAlive: Bool) throws(Failure) -> Response {
        if !keepAlive { disconnect() }
        return Response(status: response.head.status, body: response.body)
    }

    private func connect() throws(Failure) {
        let socketFD = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw Failure(kind: "api_socket") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socketFD, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard address.connect(socketFD) else {
            Glibc.close(socketFD)
            throw Failure(kind: "api_connect")
        }
        fd = socketFD
    }

    private func disconnect() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
