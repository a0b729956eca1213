import Glibc

/// A loopback TCP port that was free a moment ago (bound to port 0, read back, released), for a child process
/// that must be told its port up front.
public func freeLoopbackPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard ok else { throw LoopbackPortFailure(errno: errno) }
    return UInt16(bigEndian: addr.sin_port)
}

/// No loopback port could be bound.
public struct LoopbackPortFailure: Error, CustomStringConvertible {
    public let errno: Int32
    public var description: String { "cannot find a free loopback port: errno \(errno)" }
}
