import CLinux
import Glibc

/// A listening TCP socket registered on one loop. The server opens one per loop on the same port with SO_REUSEPORT,
/// so the kernel spreads connections across loops and no acceptor thread hands them off.
/// Running out of descriptors (EMFILE/ENFILE) pauses accepting for a moment instead of spinning on a socket
/// that stays readable.
///
/// `@unchecked Sendable`: touched only on its loop thread; Sendable so it can be handed to that loop with `execute`.
public final class Listener: EventHandler, @unchecked Sendable {
    public let loop: EventLoop
    public let fd: Int32
    public let localAddress: SocketAddress
    /// Called on the loop thread with each accepted non-blocking socket.
    private let onAccept: (Int32) -> Void
    /// Called on the loop thread when accept fails for a reason worth logging (e.g. EMFILE).
    private let onError: (SystemError) -> Void
    private var registration: Registration?
    private var backoffTimer: TimerID?

    /// Milliseconds accepting pauses after EMFILE/ENFILE/ENOBUFS/ENOMEM.
    public static let backoffMilliseconds: UInt64 = 100
    /// Accepts per readiness event, so a connection storm cannot starve other sockets on the loop.
    private static let acceptBatch = 64

    /// Binds and listens (any thread). Register with `start()` on the loop thread.
    public init(address: SocketAddress, loop: EventLoop, reusePort: Bool, backlog: Int32 = 4096,
                onAccept: @escaping (Int32) -> Void, onError: @escaping (SystemError) -> Void) throws {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        do {
            _ = clinux_setsockopt_int(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if reusePort, clinux_setsockopt_int(fd, SOL_SOCKET, SO_REUSEPORT, 1) != 0 {
                throw SystemError("setsockopt(SO_REUSEPORT)")
            }
            if address.withSockaddr({ bind(fd, $0, $1) }) != 0 { throw SystemError("bind(\(address))") }
            if listen(fd, backlog) != 0 { throw SystemError("listen(\(address))") }
            localAddress = try SocketAddress.local(of: fd)
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.fd = fd
        self.loop = loop
        self.onAccept = onAccept
        self.onError = onError
    }

    /// Starts accepting. Loop thread only.
    public func start() throws {
        registration = try loop.register(fd: fd, interest: .read, handler: self)
    }

    /// Stops accepting and closes the socket. Loop thread only.
    public func close() {
        if let backoffTimer { loop.cancel(backoffTimer) }
        backoffTimer = nil
        if let registration { loop.deregister(registration) }
        registration = nil
        Glibc.close(fd)
    }

    public func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        for _ in 0..<Self.acceptBatch {
            let client = clinux_accept4(fd, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if client >= 0 {
                _ = clinux_setsockopt_int(client, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
                onAccept(client)
                continue
            }
            let err = clinux_errno()
            switch err {
            case EAGAIN, EWOULDBLOCK:
                return
            case EINTR, ECONNABORTED, EPROTO:
                continue // the peer gave up before we accepted; try the next one
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                onError(SystemError("accept4", errno: err))
                pause()
                return
            default:
                onError(SystemError("accept4", errno: err))
                return
            }
        }
    }

    private func pause() {
        guard let registration, backoffTimer == nil else { return }
        try? loop.setInterest(registration, [])
        backoffTimer = loop.schedule(afterMilliseconds: Self.backoffMilliseconds) { [weak self] in
            guard let self, let registration = self.registration else { return }
            self.backoffTimer = nil
            try? self.loop.setInterest(registration, .read)
        }
    }
}
