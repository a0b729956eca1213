import Dispatch
import EventLoop
import Glibc
import HTTP1
import Logging

/// POSTs JSON bodies to one `http://host[:port]/path` URL from its own serial Dispatch queue (never an event loop,
/// never a request path): three attempts with backoff, then logged and dropped. For best-effort notifications whose
/// source of truth stays in Switchboard (approval outcomes, invite texts). Push-grade delivery (outbox, signatures,
/// HTTPS) is the `Push` target's job.
final class WebhookPoster: @unchecked Sendable {
    // @unchecked: immutable after init; all I/O happens on `queue`.
    private let host: String
    private let port: UInt16
    private let path: String
    private let logger: Logger
    private let queue: DispatchQueue

    /// nil when `url` is not an `http://host[:port]/path` URL.
    init?(url: String, label: String, logger: Logger) {
        guard url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst(7)
        let authority = rest.prefix { $0 != "/" }
        path = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : "/"
        if let colon = authority.lastIndex(of: ":"), let p = UInt16(authority[authority.index(after: colon)...]) {
            host = String(authority[..<colon])
            port = p
        } else {
            host = String(authority)
            port = 80
        }
        guard !host.isEmpty else { return nil }
        self.logger = logger
        queue = DispatchQueue(label: label)
    }

    /// Sends `body` in the background; `what` names it in the warning logged when every attempt failed.
    func post(_ body: [UInt8], what: String) {
        queue.async { [self] in
            for attempt in 1...3 {
                if let status = send(body), (200..<300).contains(status) { return }
                usleep(useconds_t(200_000 * attempt))
            }
            logger.warning("webhook \(host):\(port)\(path) failed three times for \(what)")
        }
    }

    /// One blocking request with a 5 s timeout; the status, or nil on a network error.
    private func send(_ body: [UInt8]) -> Int? {
        guard let address = try? SocketAddress.resolve(host: host, port: port) else { return nil }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard address.connect(fd) else { return nil }
        var head = "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\n"
        head += "Content-Length: \(body.count)\r\nConnection: close\r\nUser-Agent: switchboard\r\n\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return nil }
            sent += n
        }
        var parser = HTTPResponseParser()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            guard let (_, response) = try? buffer[0..<n].withUnsafeBytes({ try parser.parse($0) }) else { return nil }
            if let response { return response.head.status }
        }
    }
}
