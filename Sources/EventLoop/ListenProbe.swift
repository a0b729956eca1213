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

extension ListenProbe {
    /// Socket inodes listening on exactly `address` (address and port), from /proc/net/tcp or tcp6. After binding
    /// with SO_REUSEPORT, any inode here that is not one of ours belongs to another process that joined the group
    /// (two processes that started in the same instant can both pass `check`).
    public static func listeningInodes(_ address: SocketAddress) -> Set<UInt64> {
        let table = address.family == AF_INET6 ? "/proc/net/tcp6" : "/proc/net/tcp"
        guard let text = readProcFile(table) else { return [] }
        let wanted = address.procHex + ":" + hex(UInt32(address.port), digits: 4)
        var inodes = Set<UInt64>()
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, fields[3] == "0A", fields[1] == wanted, let inode = UInt64(fields[9]) else { continue }
            inodes.insert(inode)
        }
        return inodes
    }

    /// The inode of the socket `fd` (what /proc/net/tcp lists).
    public static func inode(of fd: Int32) -> UInt64? {
        var info = stat()
        return fstat(fd, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    private static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension SocketAddress {
    /// The address as /proc/net/tcp{,6} prints it: each 32-bit word of the network-order bytes as the host reads it.
    var procHex: String {
        withUnsafeBytes(of: storage) { raw -> String in
            if family == AF_INET6 {
                let offset = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
                return (0..<4).map { ListenProbe.hex(raw.loadUnaligned(fromByteOffset: offset + 4 * $0, as: UInt32.self), digits: 8) }.joined()
            }
            let offset = MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!
            return ListenProbe.hex(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self), digits: 8)
        }
    }

    /// The remote address of a connected socket (for log lines), nil when the peer is already gone.
    public static func peer(of fd: Int32) -> SocketAddress? {
        var address = SocketAddress(storage: sockaddr_storage(), length: socklen_t(MemoryLayout<sockaddr_storage>.size))
        let rc = withUnsafeMutableBytes(of: &address.storage) {
            getpeername(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &address.length)
        }
        return rc == 0 ? address : nil
    }
}
