import CLinux
import Glibc

/// Whether a listen address could be bound by a new process, checked with a throwaway socket that does NOT set
/// SO_REUSEPORT: any socket already listening there (another gateway process included, even one that set
/// SO_REUSEPORT itself) makes this bind fail with EADDRINUSE, where a SO_REUSEPORT bind would silently join it.
public enum ListenProbe {
    public enum Outcome: Equatable, Sendable {
        case free
        /// Another socket listens on the address.
        case inUse
        /// The address cannot be bound at all (not a local address, privileged port, …).
        case unusable(SystemError)
    }

    /// Binds and closes a probe socket at `address`. Port 0 is always free.
    public static func check(_ address: SocketAddress) -> Outcome {
        guard address.port != 0 else { return .free }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .unusable(SystemError("socket")) }
        defer { Glibc.close(fd) }
        // SO_REUSEADDR lets the probe bind over TIME_WAIT leftovers of an earlier run; only listeners block it.
        _ = clinux_setsockopt_int(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        if address.withSockaddr({ bind(fd, $0, $1) }) == 0 { return .free }
        let error = SystemError("bind(\(address))")
        return error.errno == EADDRINUSE ? .inUse : .unusable(error)
    }
}

extension SocketAddress {
    /// The remote address of a connected socket (for log lines), nil when the peer is already gone.
    public static func peer(of fd: Int32) -> SocketAddress? {
        var address = SocketAddress(storage: sockaddr_storage(), length: socklen_t(MemoryLayout<sockaddr_storage>.size))
        let rc = withUnsafeMutableBytes(of: &address.storage) {
            getpeername(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &address.length)
        }
        return rc == 0 ? address : nil
    }
}
