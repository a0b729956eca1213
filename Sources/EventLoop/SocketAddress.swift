import CLinux
import Glibc

/// An IPv4 or IPv6 socket address.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    public var family: Int32 { Int32(storage.ss_family) }

    /// Resolves `host` (an IPv4/IPv6 literal, or a name looked up with getaddrinfo — blocking, so for start-up only) and `port`.
    public static func resolve(host: String, port: UInt16) throws -> SocketAddress {
        var address = SocketAddress(storage: sockaddr_storage(), length: 0)
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if literal.contains(":") {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            if inet_pton(AF_INET6, literal, &sin6.sin6_addr) == 1 {
                withUnsafeBytes(of: sin6) { src in
                    withUnsafeMutableBytes(of: &address.storage) { $0.copyMemory(from: src) }
                }
                address.length = socklen_t(MemoryLayout<sockaddr_in6>.size)
                return address
            }
        }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        if inet_pton(AF_INET, literal, &sin.sin_addr) == 1 {
            withUnsafeBytes(of: sin) { src in
                withUnsafeMutableBytes(of: &address.storage) { $0.copyMemory(from: src) }
            }
            address.length = socklen_t(MemoryLayout<sockaddr_in>.size)
            return address
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(literal, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw SystemError("getaddrinfo(\(host))", errno: rc == EAI_SYSTEM ? clinux_errno() : EINVAL)
        }
        defer { freeaddrinfo(result) }
        withUnsafeMutableBytes(of: &address.storage) {
            $0.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        address.length = first.pointee.ai_addrlen
        return address
    }

    /// The port in host byte order.
    public var port: UInt16 {
        withUnsafeBytes(of: storage) { raw in
            family == AF_INET6
                ? UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
                : UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
        }
    }

    /// The host part as text ("127.0.0.1", "::1").
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET6 {
                var addr = raw.load(as: sockaddr_in6.self).sin6_addr
                _ = inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count))
            } else {
                var addr = raw.load(as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count))
            }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Connects a socket to this address (blocking unless `fd` is non-blocking); false on failure, errno set.
    public func connect(_ fd: Int32) -> Bool {
        withSockaddr { Glibc.connect(fd, $0, $1) } == 0
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }

    static func local(of fd: Int32) throws -> SocketAddress {
        var address = SocketAddress(storage: sockaddr_storage(), length: socklen_t(MemoryLayout<sockaddr_storage>.size))
        let rc = withUnsafeMutableBytes(of: &address.storage) {
            getsockname(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &address.length)
        }
        guard rc == 0 else { throw SystemError("getsockname") }
        return address
    }
}
