import CLinux
import Glibc

/// Bytes queued for one socket, sent with `writev`. Small writes are packed into the tail chunk so many frames
/// leave in one system call; `SharedBytes` (a broadcast's frame) are queued by reference, not copied, each as one
/// more `iovec` of the same `writev`. Nothing is allocated while the queue is empty, so idle connections cost nothing
/// here. Owned by one loop thread.
struct OutboundBuffer: ~Copyable {
    private struct Chunk {
        var storage: UnsafeMutableRawBufferPointer
        var start: Int
        var end: Int
        /// Set for bytes held by reference: never written into, released (not deallocated) once written.
        var shared: SharedBytes?

        /// Room left for packing more bytes behind `end`.
        var room: Int { shared == nil ? storage.count - end : 0 }
    }

    private static let chunkSize = 16 * 1024
    /// The chunk a write to an empty queue starts with. A fan-out queues one small event on thousands of sockets in
    /// one loop iteration before they flush; 16 KiB each made a 10 000-subscriber publish hold ~160 MiB at once (and
    /// malloc keeps the high-water mark), so the first chunk is small and only a burst grows into full chunks.
    private static let firstChunkSize = 1024
    private static let maxIOVecs = 64

    private var chunks: [Chunk] = []
    private var head = 0
    /// Bytes queued and not yet written.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    deinit {
        for i in head..<chunks.count where chunks[i].shared == nil { chunks[i].storage.deallocate() }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        count += bytes.count
        var remaining = bytes
        let wasEmpty = head == chunks.count
        if !wasEmpty {
            let last = chunks.count - 1
            let room = chunks[last].room
            if room > 0 {
                let n = min(room, remaining.count)
                UnsafeMutableRawBufferPointer(rebasing: chunks[last].storage[chunks[last].end..<chunks[last].end + n])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: remaining[0..<n]))
                chunks[last].end += n
                remaining = UnsafeRawBufferPointer(rebasing: remaining[n...])
            }
        }
        guard !remaining.isEmpty else { return }
        let size = max(wasEmpty ? Self.firstChunkSize : Self.chunkSize, remaining.count)
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        storage.copyMemory(from: remaining)
        chunks.append(Chunk(storage: storage, start: 0, end: remaining.count))
    }

    /// Queues `bytes` by reference. Copied instead when they fit in the tail chunk's free room (cheaper than one more
    /// `iovec`, and it allocates nothing).
    mutating func append(_ bytes: SharedBytes) {
        guard bytes.count > 0 else { return }
        if head < chunks.count && chunks[chunks.count - 1].room >= bytes.count {
            return append(bytes.bytes)
        }
        count += bytes.count
        chunks.append(Chunk(storage: UnsafeMutableRawBufferPointer(mutating: bytes.bytes), start: 0, end: bytes.count, shared: bytes))
    }

    enum FlushResult: Equatable {
        case drained
        case wouldBlock
        case failed(Int32)
    }

    /// Writes as much as the socket takes.
    mutating func flush(to fd: Int32) -> FlushResult {
        while count > 0 {
            let n = min(Self.maxIOVecs, chunks.count - head)
            let written: Int
            if n == 1 {
                // One frame (the usual fan-out delivery): `send` skips `writev`'s vector import.
                let chunk = chunks[head]
                written = Glibc.send(fd, chunk.storage.baseAddress! + chunk.start, chunk.end - chunk.start, Int32(MSG_NOSIGNAL))
            } else {
                written = withUnsafeTemporaryAllocation(of: iovec.self, capacity: n) { iov -> Int in
                    for i in 0..<n {
                        let chunk = chunks[head + i]
                        iov[i] = iovec(iov_base: chunk.storage.baseAddress! + chunk.start, iov_len: chunk.end - chunk.start)
                    }
                    return writev(fd, iov.baseAddress, Int32(n))
                }
            }
            if written < 0 {
                let err = clinux_errno()
                if err == EINTR { continue }
                if err == EAGAIN || err == EWOULDBLOCK { return .wouldBlock }
                return .failed(err)
            }
            consume(written)
        }
        return .drained
    }

    private mutating func consume(_ written: Int) {
        count -= written
        var left = written
        while left > 0 {
            let available = chunks[head].end - chunks[head].start
            if left >= available {
                if chunks[head].shared == nil { chunks[head].storage.deallocate() } else { chunks[head].shared = nil }
                head += 1
                left -= available
            } else {
                chunks[head].start += left
                left = 0
            }
        }
        if head == chunks.count {
            chunks.removeAll()
            head = 0
        } else if head > 32 {
            chunks.removeFirst(head)
            head = 0
        }
    }
}
