// CLinux too: which module owns `SOCK_STREAM` depends on the order clang modules load in (ListenProbeTests imports CLinux).
import CLinux
import Dispatch
import Glibc
import Synchronization
@testable import EventLoop

/// Runs `body` on the loop and waits for it to call `done`, failing after `seconds`.
func onLoop<T: Sendable>(_ loop: EventLoop, seconds: Double = 5, _ body: @escaping @Sendable (_ done: @escaping @Sendable (T) -> Void) -> Void) -> T? {
    let result = Mutex<T?>(nil)
    let semaphore = DispatchSemaphore(value: 0)
    loop.execute {
        body { value in
            result.withLock { $0 = value }
            semaphore.signal()
        }
    }
    guard semaphore.wait(timeout: .now() + seconds) == .success else { return nil }
    return result.withLock { $0 }
}

/// Polls `condition` on the loop's thread, where the state it reads lives, every 5 ms until it holds or `seconds` pass.
func eventually(on loop: EventLoop, seconds: Double = 5, _ condition: @escaping @Sendable () -> Bool) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while true {
        if onLoop(loop, { (done: @escaping @Sendable (Bool) -> Void) in done(condition()) }) == true { return true }
        if DispatchTime.now() >= deadline { return false }
        usleep(5_000)
    }
}

/// A delegate that records what it reads and, optionally, echoes it back.
final class RecordingDelegate: SocketConnectionDelegate, @unchecked Sendable {
    var received: [UInt8] = []
    var closed = false
    var closeError: SystemError?
    var drained = 0
    let echo: Bool
    var onRead: ((RecordingDelegate) -> Void)?
    var onClose: (() -> Void)?

    init(echo: Bool = false) { self.echo = echo }

    func connectionDidRead(_ connection: SocketConnection, _ bytes: UnsafeMutableRawBufferPointer) -> Int {
        received.append(contentsOf: bytes)
        if echo { connection.write(UnsafeRawBufferPointer(bytes)) }
        onRead?(self)
        return bytes.count
    }

    func connectionDidClose(_ connection: SocketConnection, error: SystemError?) {
        closed = true
        closeError = error
        onClose?()
    }

    func connectionDidDrain(_ connection: SocketConnection) { drained += 1 }
}

/// Blocking loopback client for driving a server under test from the test thread.
struct BlockingClient {
    let fd: Int32

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 { throw SystemError("connect") }
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Reads exactly `count` bytes (or fewer if the peer closes or 5 s pass).
    func receive(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while out.count < count {
            let n = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, min($0.count, count - out.count), 0) }
            if n <= 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    /// True when the peer has closed (read returns 0).
    func readsEOF() -> Bool {
        var byte: UInt8 = 0
        return Glibc.recv(fd, &byte, 1, 0) == 0
    }

    func close() { Glibc.close(fd) }
}
