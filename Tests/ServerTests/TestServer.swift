@testable import GatewayRuntime
import Glibc
import HTTP1
import Logging
@testable import Server
import WebSocketCodec

/// A real server on an ephemeral loopback port for one test.
final class TestServer {
    let server: Server
    let port: UInt16
    var tlsPort: UInt16 { server.tlsAddress!.port }

    init(_ configure: (inout ServerSettings) -> Void = { _ in }, application: WebSocketApplication? = EchoApplication(),
         readyWhenStarted: Bool = true) throws {
        var settings = ServerSettings()
        settings.listen = .init(host: "127.0.0.1", port: 0)
        settings.eventLoops = 2
        settings.drainTimeoutMs = 1000
        settings.webSocket.closeTimeoutMs = 500
        settings.webSocket.compressionThresholdBytes = 0
        configure(&settings)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        server = try Server(settings: settings, application: application, readyWhenStarted: readyWhenStarted, logger: logger)
        try server.start()
        port = server.plainAddress?.port ?? 0
    }

    deinit { server.shutdown() }
}

/// A blocking loopback TCP client with a receive timeout, for driving the server from the test thread.
final class RawClient {
    let fd: Int32
    var buffer: [UInt8] = []

    /// `source` binds the client's end to that loopback address first (any of 127.0.0.0/8), for tests that need
    /// clients at different addresses.
    init(port: UInt16, timeoutSeconds: Int = 5, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { Glibc.close(fd); throw TestFailure("bind to \(source) failed: errno \(errno)") }
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw TestFailure("connect failed: errno \(errno)") }
    }

    deinit { Glibc.close(fd) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// Reads more bytes into `buffer`; false on EOF, error or timeout.
    @discardableResult
    func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// True once the server has closed the connection (EOF or reset) with nothing left unread.
    func isClosedByPeer() -> Bool {
        while fill() {}
        return true
    }

    /// Reads one HTTP response (head + Content-Length body).
    func readResponse() throws -> (head: HTTPResponseHead, body: [UInt8]) {
        var parser = HTTPResponseParser()
        while true {
            if !buffer.isEmpty {
                let (consumed, response) = try buffer.withUnsafeBytes { try parser.parse($0) }
                buffer.removeFirst(consumed)
                if let response { return response }
            }
            guard fill() else { throw TestFailure("connection ended before a full response") }
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Hands test-owned objects to another thread where the test orders access itself.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
