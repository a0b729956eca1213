/// Immutable bytes that many sockets' outbound queues hold by reference, e.g. one encoded WebSocket frame of a
/// broadcast: a publish to N sockets then copies nothing per socket, and the bytes are freed when the last queue
/// holding them has written them.
/// `@unchecked Sendable`: never written after `init`.
public final class SharedBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// The bytes; valid while this object lives.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }
    public let count: Int

    /// Allocates `count` bytes and lets `fill` write all of them, once.
    public init(count: Int, fill: (UnsafeMutableRawBufferPointer) -> Void) {
        self.count = count
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        fill(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
    }

    public convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count) { out in bytes.withUnsafeBytes { out.copyMemory(from: $0) } }
    }

    deinit { storage.deallocate() }
}
