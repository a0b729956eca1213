import CLinux
import Glibc

/// Receives a connection's bytes and its end. Called on the connection's loop thread.
public protocol SocketConnectionDelegate: AnyObject {
    /// New bytes, preceded by whatever the delegate left unconsumed last time. Returns how many it consumed;
    /// the rest is kept and presented again with the next read. The buffer is only valid during the call.
    func connectionDidRead(_ connection: SocketConnection, _ bytes: UnsafeMutableRawBufferPointer) -> Int
    /// The connection is closed (by either side); `error` is nil for an orderly end. Called exactly once.
    func connectionDidClose(_ connection: SocketConnection, error: SystemError?)
    /// The outbound queue has been written out completely, after `notifyWhenDrained()` asked for it (for
    /// backpressure). Once per request.
    func connectionDidDrain(_ connection: SocketConnection)
}

extension SocketConnectionDelegate {
    public func connectionDidDrain(_ connection: SocketConnection) {}
}

/// A non-blocking TCP stream owned by one loop for its whole life. Reads go into the loop's shared buffer and only
/// unconsumed leftovers are kept here; writes queue and leave in one `writev` before the loop sleeps, with EPOLLOUT
/// armed only when the kernel did not take everything. Not thread-safe: use it only on `loop`.
/// `@unchecked Sendable`: touched only on its loop thread; Sendable so it can be handed to that loop with `execute`.
public final class SocketConnection: EventHandler, FlushHandler, @unchecked Sendable {
    public let loop: EventLoop
    public let fd: Int32
    public weak var delegate: SocketConnectionDelegate?
    /// Free for the owner (e.g. the protocol handler) to hang state on.
    public var context: AnyObject?

    private var registration: Registration?
    private var leftover: [UInt8] = []
    private var outbound = OutboundBuffer()
    private var flushQueued = false
    private var waitingForWritable = false
    private var readingPaused = false
    private var closeAfterFlush = false
    private var shutdownAfterFlush = false
    /// `notifyWhenDrained()` was called and the queue has not been empty since. Only senders that wait for room ask:
    /// telling every socket after every flush cost a delegate call chain per delivered frame in a fan-out.
    private var drainNoticeWanted = false
    /// The write side was shut down (FIN sent); reads continue until the peer closes.
    public private(set) var isWriteShutdown = false
    private var connectCompletion: ((SystemError?) -> Void)?
    public private(set) var isClosed = false

    /// Bytes queued for the peer and not yet accepted by the kernel.
    public var bufferedBytes: Int { outbound.count }

    /// Adopts an accepted, non-blocking socket. Call on `loop`'s thread.
    public init(fd: Int32, loop: EventLoop) throws {
        self.fd = fd
        self.loop = loop
        registration = try loop.register(fd: fd, interest: .read, handler: self)
    }

    /// Opens a non-blocking connection to `address` (for clients: tests and the load generator). Call on `loop`'s thread;
    /// `completion` runs on it once connected or failed (a failed connection is closed without `connectionDidClose`).
    public static func connect(to address: SocketAddress, on loop: EventLoop, completion: @escaping (SystemError?) -> Void) throws -> SocketConnection {
        try connect(to: address, from: nil, on: loop, completion: completion)
    }

    /// Like `connect(to:on:completion:)`, but binds the socket to the local `source` address first (pass port 0). The ephemeral port is then chosen at connect time (`IP_BIND_ADDRESS_NO_PORT`), so each source address
    /// has its own ~28k ports per destination: a load generator passes several loopback sources to go beyond that.
    /// Throws if the bind fails (e.g. EADDRNOTAVAIL for an address not on this host).
    public static func connect(to address: SocketAddress, from source: SocketAddress?, on loop: EventLoop, completion: @escaping (SystemError?) -> Void) throws -> SocketConnection {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        _ = clinux_setsockopt_int(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        if let source {
            // Without this, bind() reserves a port for every destination and ~28k sockets exhaust the range.
            _ = clinux_setsockopt_int(fd, Int32(IPPROTO_IP), IP_BIND_ADDRESS_NO_PORT, 1)
            let bound = source.withSockaddr { Glibc.bind(fd, $0, $1) }
            if bound != 0 {
                let error = SystemError("bind(\(source))")
                Glibc.close(fd)
                throw error
            }
        }
        let rc = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        if rc != 0 && clinux_errno() != EINPROGRESS {
            let error = SystemError("connect(\(address))")
            Glibc.close(fd)
            throw error
        }
        let connection = try SocketConnection(fd: fd, loop: loop)
        connection.connectCompletion = completion
        connection.waitingForWritable = true
        try loop.setInterest(connection.registration!, [.write])
        return connection
    }

    // MARK: Writing

    /// Queues bytes; they are sent before the loop sleeps.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed, !closeAfterFlush, !isWriteShutdown else { return }
        outbound.append(bytes)
        scheduleFlush()
    }

    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Queues bytes shared with other sockets by reference (no copy); they are sent before the loop sleeps, in the
    /// same `writev` as everything else queued for this socket.
    public func write(_ bytes: SharedBytes) {
        guard !isClosed, !closeAfterFlush, !isWriteShutdown else { return }
        outbound.append(bytes)
        scheduleFlush()
    }

    /// Asks for one `connectionDidDrain` once everything queued has been written (at the next flush if the queue is
    /// already empty).
    public func notifyWhenDrained() {
        guard !isClosed else { return }
        drainNoticeWanted = true
        if outbound.isEmpty { scheduleFlush() }
    }

    /// Sends what is queued, then closes (shutting down the write side first so the peer sees an orderly FIN).
    public func closeWhenFlushed() {
        guard !isClosed else { return }
        closeAfterFlush = true
        scheduleFlush()
    }

    /// Sends what is queued, then shuts down the write side only (FIN) and keeps reading until the peer closes:
    /// a lingering close, so a peer still sending does not get a RST that could destroy our last frames in its buffer.
    public func shutdownWriteWhenFlushed() {
        guard !isClosed, !isWriteShutdown else { return }
        shutdownAfterFlush = true
        scheduleFlush()
    }

    /// Stops or resumes reading (e.g. while the peer is not reading our output).
    public func setReadingPaused(_ paused: Bool) {
        guard paused != readingPaused, !isClosed else { return }
        readingPaused = paused
        updateInterest()
    }

    private func scheduleFlush() {
        guard !flushQueued else { return }
        flushQueued = true
        loop.flushBeforeSleep(self)
    }

    public func flushBeforeSleep() {
        flushQueued = false
        guard !isClosed, !waitingForWritable || connectCompletion == nil else { return }
        flushNow()
    }

    private func flushNow() {
        switch outbound.flush(to: fd) {
        case .drained:
            if waitingForWritable {
                waitingForWritable = false
                updateInterest()
            }
            if closeAfterFlush {
                shutdown(fd, Int32(SHUT_WR))
                close(error: nil)
                return
            }
            if shutdownAfterFlush {
                shutdownAfterFlush = false
                isWriteShutdown = true
                shutdown(fd, Int32(SHUT_WR))
            }
            if drainNoticeWanted {
                drainNoticeWanted = false
                delegate?.connectionDidDrain(self)
            }
        case .wouldBlock:
            if !waitingForWritable {
                waitingForWritable = true
                updateInterest()
            }
        case .failed(let err):
            close(error: SystemError("writev", errno: err))
        }
    }

    private func updateInterest() {
        guard let registration else { return }
        var interest: Interest = []
        if !readingPaused && !closeAfterFlush { interest.insert(.read) }
        if waitingForWritable { interest.insert(.write) }
        do { try loop.setInterest(registration, interest) } catch { close(error: error as? SystemError) }
    }

    // MARK: Events

    public func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        if let completion = connectCompletion {
            guard writable || hangup else { return }
            connectCompletion = nil
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
            waitingForWritable = false
            if err != 0 {
                delegate = nil
                close(error: SystemError("connect", errno: err))
                completion(SystemError("connect", errno: err))
                return
            }
            updateInterest()
            completion(nil)
            if !outbound.isEmpty { flushNow() }
            return
        }
        if writable && waitingForWritable { flushNow() }
        if (readable || hangup) && !isClosed && !readingPaused { readAvailable() }
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n < 0 {
            let err = clinux_errno()
            if err == EAGAIN || err == EWOULDBLOCK || err == EINTR { return }
            close(error: SystemError("read", errno: err))
            return
        }
        if n == 0 {
            close(error: nil)
            return
        }
        deliver(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]))
    }

    private func deliver(_ fresh: UnsafeMutableRawBufferPointer) {
        guard let delegate else { return }
        if leftover.isEmpty {
            let consumed = delegate.connectionDidRead(self, fresh)
            if consumed < fresh.count && !isClosed {
                leftover.append(contentsOf: UnsafeRawBufferPointer(rebasing: fresh[consumed...]))
            }
        } else {
            leftover.append(contentsOf: UnsafeRawBufferPointer(fresh))
            var pending = leftover
            leftover = []
            let consumed = pending.withUnsafeMutableBytes { delegate.connectionDidRead(self, $0) }
            if consumed < pending.count && !isClosed {
                pending.removeFirst(consumed)
                leftover = pending
            }
        }
    }

    // MARK: Closing

    /// Closes now, dropping queued output. Safe to call more than once.
    public func close(error: SystemError? = nil) {
        guard !isClosed else { return }
        isClosed = true
        if let registration { loop.deregister(registration) }
        registration = nil
        Glibc.close(fd)
        leftover = []
        outbound = OutboundBuffer()
        let delegate = self.delegate
        self.delegate = nil
        delegate?.connectionDidClose(self, error: error)
    }
}
