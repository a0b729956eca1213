import CZlib

/// Compresses whole messages for sending (RFC 7692 §7.2.1): server→client, or client→server in the harness.
///
/// Owned by one connection; not thread-safe. zlib state (about `1 << (windowBits + 2)` plus
/// `1 << (memLevel + 9)` bytes, 256 KiB at 15/8) is allocated lazily on the first non-empty message and, when
/// `noContextTakeover`, freed again after every message, so an idle connection then holds no zlib memory.
/// With context takeover it lives until deinit, as the dictionary must survive between messages.
public final class PerMessageDeflater {
    /// The agreed window, 8...15 as on the wire. 8 is compressed with a 9-bit zlib window, which still only
    /// emits distances <= 250 (see `PerMessageDeflateNegotiation`), valid for a 256-byte peer window.
    public let windowBits: Int
    /// True when this end resets its context after every message (its `*_no_context_takeover`).
    public let noContextTakeover: Bool
    /// zlib level 0...9 and memLevel 1...9, clamped from the initializer's arguments.
    public let compressionLevel: Int, memLevel: Int
    private var stream: UnsafeMutablePointer<z_stream>?

    static let chunkSize = 16 * 1024
    /// RFC 7692 §7.2.1: a sync flush ends with this empty stored block, which the sender removes.
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// `windowBits` must be 8...15; `compressionLevel` and `memLevel` are clamped to 0...9 and 1...9.
    public init(windowBits: Int, noContextTakeover: Bool, compressionLevel: Int = 6, memLevel: Int = 8) {
        precondition(DeflateParameterSet.windowBitsRange.contains(windowBits), "windowBits must be 8...15")
        self.windowBits = windowBits
        self.noContextTakeover = noContextTakeover
        self.compressionLevel = min(max(compressionLevel, 0), 9)
        self.memLevel = min(max(memLevel, 1), 9)
    }

    deinit { releaseStream() }

    /// Whether zlib state is currently allocated (for memory accounting and tests).
    public var holdsZlibState: Bool { stream != nil }

    /// Appends the compressed form of `input` to `output`, with the trailing 00 00 ff ff removed
    /// (RFC 7692 §7.2.1); the caller sends it as one message with RSV1 set. Never fails for valid state;
    /// traps only if zlib cannot allocate its state (out of memory).
    public func compress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        guard let base = input.baseAddress, !input.isEmpty else {
            // RFC 7692 §7.2.3.6: one empty stored block header. Touching zlib here would be wrong too:
            // a second sync flush without input yields no bytes at all (Z_BUF_ERROR).
            output.append(0x00)
            return
        }
        let strm = acquireStream()
        let start = output.count
        var next = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        var remaining = input.count
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.chunkSize) { scratch in
            while true {
                if strm.pointee.avail_in == 0 && remaining > 0 {
                    let slice = min(remaining, Int(UInt32.max / 2))
                    strm.pointee.next_in = next
                    strm.pointee.avail_in = UInt32(slice)
                    next += slice
                    remaining -= slice
                }
                strm.pointee.next_out = scratch.baseAddress
                strm.pointee.avail_out = UInt32(Self.chunkSize)
                // Sync flush only once all input is in: ends on a byte boundary with 00 00 ff ff.
                let rc = CZlib.deflate(strm, remaining == 0 ? Z_SYNC_FLUSH : Z_NO_FLUSH)
                precondition(rc == Z_OK || rc == Z_BUF_ERROR, "zlib deflate failed (\(rc))")
                let produced = Self.chunkSize - Int(strm.pointee.avail_out)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<produced]))
                // Done when all input is consumed and zlib had room left, i.e. the flush is complete.
                if remaining == 0 && strm.pointee.avail_in == 0 && strm.pointee.avail_out != 0 { break }
            }
        }
        strm.pointee.next_in = nil
        strm.pointee.avail_in = 0
        precondition(output.count - start >= 4 && Array(output[(output.count - 4)...]) == Self.tail,
                     "sync flush must end with an empty stored block")
        output.removeLast(4)
        if noContextTakeover { releaseStream() }
    }

    /// Convenience: compresses `input` and returns the bytes to send.
    public func compress(_ input: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        input.withUnsafeBytes { compress($0, into: &output) }
        return output
    }

    private func acquireStream() -> UnsafeMutablePointer<z_stream> {
        if let stream { return stream }
        // zlib keeps a back-pointer to the z_stream, so it must live at a fixed heap address.
        let strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        // zlib rejects an 8-bit raw deflate window; 9 stays valid for an 8-bit peer (see windowBits).
        let zlibBits = max(windowBits, 9)
        let rc = czlib_deflateInit2(strm, Int32(compressionLevel), -Int32(zlibBits), Int32(memLevel))
        precondition(rc == Z_OK, "zlib deflateInit2 failed (\(rc))")
        stream = strm
        return strm
    }

    private func releaseStream() {
        guard let strm = stream else { return }
        deflateEnd(strm)
        strm.deallocate()
        stream = nil
    }
}
