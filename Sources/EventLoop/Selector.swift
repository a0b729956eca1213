import CLinux
import Glibc

/// Which readiness a registration waits for.
public struct Interest: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let read = Interest(rawValue: 1)
    public static let write = Interest(rawValue: 2)
}

/// The epoll backend, kept as small as Redis's `ae_epoll.c`: create, add, modify, delete, wait.
/// Level-triggered on purpose: a handler that stops early (fairness caps, backpressure) is woken again next iteration.
/// Owned by one loop thread.
final class Selector {
    let epollFD: Int32
    private let capacity: Int
    private let events: UnsafeMutableRawPointer

    init(capacity: Int = 1024) throws {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SystemError("epoll_create1") }
        epollFD = fd
        self.capacity = capacity
        events = UnsafeMutableRawPointer.allocate(
            byteCount: capacity * clinux_epoll_event_size(), alignment: 8)
    }

    deinit {
        events.deallocate()
        close(epollFD)
    }

    private static func mask(_ interest: Interest) -> UInt32 {
        var bits: UInt32 = CLINUX_EPOLLRDHUP
        if interest.contains(.read) { bits |= CLINUX_EPOLLIN }
        if interest.contains(.write) { bits |= CLINUX_EPOLLOUT }
        return bits
    }

    func add(fd: Int32, interest: Interest, token: UInt64) throws {
        if clinux_epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, Self.mask(interest), token) != 0 {
            throw SystemError("epoll_ctl(ADD)")
        }
    }

    func modify(fd: Int32, interest: Interest, token: UInt64) throws {
        if clinux_epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, Self.mask(interest), token) != 0 {
            throw SystemError("epoll_ctl(MOD)")
        }
    }

    func remove(fd: Int32) {
        // Failure here means the fd was already closed; nothing left to undo.
        _ = clinux_epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, 0, 0)
    }

    /// Waits up to `timeoutMs` (-1 = forever) and reports each ready registration.
    /// `woke` runs once after `epoll_wait` returns and before any event is delivered (the loop reads its clock there).
    func wait(
        timeoutMs: Int32, woke: () -> Void,
        _ body: (_ token: UInt64, _ readable: Bool, _ writable: Bool, _ hangup: Bool) -> Void
    ) throws {
        let typed = events.assumingMemoryBound(to: epoll_event.self)
        let n = epoll_wait(epollFD, typed, Int32(capacity), timeoutMs)
        woke()
        if n < 0 {
            if clinux_errno() == EINTR { return }
            throw SystemError("epoll_wait")
        }
        for i in 0..<Int(n) {
            let bits = clinux_epoll_event_events(typed, Int32(i))
            let token = clinux_epoll_event_data(typed, Int32(i))
            let hangup = bits & (CLINUX_EPOLLHUP | CLINUX_EPOLLERR | CLINUX_EPOLLRDHUP) != 0
            body(token, bits & CLINUX_EPOLLIN != 0, bits & CLINUX_EPOLLOUT != 0, hangup)
        }
    }
}
