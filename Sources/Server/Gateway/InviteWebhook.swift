import Dispatch
import EventLoop
import Gateway
import GatewayProtocol
import Glibc
import HTTP1
import Logging

/// Hands invite texts to the app's SMS/e-mail service: POSTs each `InviteDelivery` as
/// `{"type":"invite","delivery":{channel,to,text,code,groupId,groupName,inviterId,inviterName,expiresAt}}` to the
/// configured URL from a serial Dispatch queue (never the hub loop, never the request path). Plain `http://` only;
/// three attempts with backoff, then logged and dropped — the invite itself is stored and the inviter has the code.
/// The same pattern as `ApprovalWebhook`.
final class InviteWebhook: InviteDeliverer, @unchecked Sendable {
    // @unchecked: immutable after init; all I/O happens on `queue`.
    private let host: String
    private let port: UInt16
    private let path: String
    private let logger: Logger
    private let queue = DispatchQueue(label: "switchboard.invite-webhook")

    /// nil when `url` is not an `http://host[:port]/path` URL.
    init?(url: String, logger: Logger) {
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
    }

    private struct Body: Encodable {
        var type = "invite"
        var delivery: InviteDelivery
    }

    func deliver(_ delivery: InviteDelivery) {
        let body = ServerFrames.encode(Body(delivery: delivery))
        queue.async { [self] in
            for attempt in 1...3 {
                if let status = post(body), (200..<300).contains(status) { return }
                usleep(useconds_t(200_000 * attempt))
            }
            logger.warning("invite webhook failed three times for group \(delivery.groupId)")
        }
    }

    /// One blocking request with a 5 s timeout; the status, or nil on a network error.
    private func post(_ body: [UInt8]) -> Int? {
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
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
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
