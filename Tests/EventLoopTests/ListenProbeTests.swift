import CLinux
import Glibc
import Testing
@testable import EventLoop

/// The checks that keep a second process out of a SO_REUSEPORT port group.
@Suite struct ListenProbeTests {
    /// A SO_REUSEPORT listener on 127.0.0.1 at `port` (0 = any), as the server's loops bind them.
    static func listener(port: UInt16) throws -> (fd: Int32, address: SocketAddress) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        _ = clinux_setsockopt_int(fd, SOL_SOCKET, SO_REUSEPORT, 1)
        let wanted = try SocketAddress.resolve(host: "127.0.0.1", port: port)
        guard wanted.withSockaddr({ bind(fd, $0, $1) }) == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw SystemError("bind/listen")
        }
        return (fd, try SocketAddress.local(of: fd))
    }

    @Test func aReusePortListenerMakesTheProbeFailAndEveryMemberIsListed() throws {
        let first = try Self.listener(port: 0)
        defer { close(first.fd) }
        #expect(ListenProbe.check(first.address) == .inUse)
        // A second SO_REUSEPORT socket (another process, in production) joins silently; /proc shows both.
        let second = try Self.listener(port: first.address.port)
        defer { close(second.fd) }
        let listed = ListenProbe.listeningInodes(first.address)
        #expect(listed == Set([ListenProbe.inode(of: first.fd), ListenProbe.inode(of: second.fd)].compactMap { $0 }))
        #expect(listed.count == 2)
    }

    @Test func aClosedPortIsFreeAndUnlisted() throws {
        let probe = try Self.listener(port: 0)
        let address = probe.address
        close(probe.fd)
        #expect(ListenProbe.listeningInodes(address).isEmpty)
        #expect(ListenProbe.check(address) == .free)
    }
}
