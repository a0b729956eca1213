import CZlib
import WebSocketCodec

/// Decompresses received permessage-deflate messages (RFC 7692 §7.2.2); the codec's `WebSocketMessageInflater`.
///
/// Owned by one connection; not thread-safe. The zlib state (about 7 KiB plus a `1 << windowBits` window) is
/// allocated lazily on the first compressed payload and freed after every message when `noContextTakeover`
/// (the peer resets its context, so nothing needs to survive), after any error, and on deinit.
/// Idle connections with no-context-takeover therefore hold no zlib memory.
public final class PerMessageInflater: WebSocketMessageInflater {
    /// The LZ77 window inflated with, 8...15 (the peer's agreed max window bits).
    public let windowBits: Int
    /// True when the peer resets its context per message; the zlib state is then freed after each message.
    public let noContextTakeover: Bool
    private var stream: UnsafeMutablePointer<z_stream>?
    /// The input so far ended exactly at the end of a BFINAL block (a sender flushing with Z_FINISH).
    private var inputEndedWithFinalBlock = false
    /// Some frame of the current message carried payload bytes.
    private var messageHasInput = false

    /// Output is produced this many bytes at a time; the limit check happens per chunk.
    static let chunkSize = 16 * 1024
    /// RFC 7692 §7.2.2: the sender stripped this empty stored block; the receiver appends it back.
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// `windowBits` must be 8...15 (RFC 7692 §7.1.2); zlib accepts an 8-bit raw inflate window.
    public init(windowBits: Int, noContextTakeover: Bool) {
        precondition(DeflateParameterSet.windowBitsRange.contains(windowBits), "windowBits must be 8...15")
        self.windowBits = windowBits
        self.noContextTakeover = noContextTakeover
    }

    deinit { releaseStream() }

    /// Whether zlib state is currently allocated (for memory accounting and tests).
    public var holdsZlibState: Bool { stream != nil }

    /// Inflates one frame's payload of a compressed message and appends the output to `output`.
    /// `limit` bounds `output.count`: as soon as one more output chunk would exceed it, throws close code 1009
    /// without appending it, so a decompression bomb costs at most `limit` bytes of output plus one
    /// `chunkSize` scratch chunk (on the stack). Corrupt or truncated data throws 1007; zlib running out of
    /// memory throws 1011. After any throw the zlib state is freed (the connection is failing anyway).
    public func inflate(_ input: UnsafeRawBufferPointer, isFinal: Bool, into output: inout [UInt8], limit: Int) throws(WebSocketProtocolError) {
        if input.isEmpty {
            if !isFinal { return }
            // A compressed message with no payload bytes at all: the tail alone is not a complete block
            // (its header byte is missing), so treat it as the empty message it can only mean and leave
            // the window untouched. RFC 7692 §7.2.3.6 senders send 0x00 instead.
            if !messageHasInput { return }
        }
        messageHasInput = !isFinal  // input is non-empty here, or this is the message's end
        let strm = try acquireStream()
        do throws(WebSocketProtocolError) {
            try feed(strm, input, into: &output, limit: limit)
            // A message whose data ended with a BFINAL block is complete; the tail would start a new stream
            // that never ends, so it is only appended otherwise.
            if isFinal && !inputEndedWithFinalBlock {
                // Array.withUnsafeBytes only rethrows untyped errors; carry the typed one out in a Result.
                let fedTail = Self.tail.withUnsafeBytes { tail in
                    Result { () throws(WebSocketProtocolError) in try feed(strm, tail, into: &output, limit: limit) }
                }
                try fedTail.get()
                // data_type bit 128: inflate stopped at a block boundary. Anything else means the message
                // ended inside a DEFLATE block: truncated data the tail could not complete.
                if !inputEndedWithFinalBlock && strm.pointee.data_type & 128 == 0 {
                    throw WebSocketProtocolError(closeCode: 1007, reason: "compressed message ends inside a DEFLATE block")
                }
            }
            if isFinal { inputEndedWithFinalBlock = false }
        } catch {
            releaseStream()
            throw error
        }
        if isFinal && noContextTakeover { releaseStream() }
    }

    /// Runs inflate over `bytes`, appending to `output`. A BFINAL block (RFC 7692 §7.2.3.4) ends zlib's
    /// stream; it is restarted keeping the window, because later data may still reference it under context
    /// takeover, and `inputEndedWithFinalBlock` records whether the input stopped right there.
    private func feed(
        _ strm: UnsafeMutablePointer<z_stream>, _ bytes: UnsafeRawBufferPointer,
        into output: inout [UInt8], limit: Int
    ) throws(WebSocketProtocolError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        inputEndedWithFinalBlock = false
        var next = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        var remaining = bytes.count
        defer {
            strm.pointee.next_in = nil
            strm.pointee.avail_in = 0
        }
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.chunkSize) { (scratch) throws(WebSocketProtocolError) in
            while true {
                if strm.pointee.avail_in == 0 && remaining > 0 {
                    // avail_in is 32-bit; feed huge frames in slices.
                    let slice = min(remaining, Int(UInt32.max / 2))
                    strm.pointee.next_in = next
                    strm.pointee.avail_in = UInt32(slice)
                    next += slice
                    remaining -= slice
                }
                strm.pointee.next_out = scratch.baseAddress
                strm.pointee.avail_out = UInt32(Self.chunkSize)
                let rc = CZlib.inflate(strm, Z_SYNC_FLUSH)
                let produced = Self.chunkSize - Int(strm.pointee.avail_out)
                if produced > 0 {
                    guard output.count + produced <= limit else {
                        throw WebSocketProtocolError(closeCode: 1009, reason: "decompressed message exceeds \(limit) bytes")
                    }
                    Self.growCapacity(of: &output, toFit: produced, limit: limit)
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<produced]))
                }
                switch rc {
                case Z_OK:
                    // Output room left over means inflate has flushed everything it could from this input.
                    if strm.pointee.avail_in == 0 && remaining == 0 && strm.pointee.avail_out != 0 { return }
                case Z_BUF_ERROR:
                    // No progress possible: with output room that can only mean the input is used up.
                    guard strm.pointee.avail_in == 0 && remaining == 0 else {
                        throw WebSocketProtocolError(closeCode: 1011, reason: "zlib inflate stalled")
                    }
                    return
                case Z_STREAM_END:
                    try restartKeepingWindow(strm)
                    if strm.pointee.avail_in == 0 && remaining == 0 {
                        inputEndedWithFinalBlock = true
                        return
                    }
                case Z_DATA_ERROR:
                    throw WebSocketProtocolError(closeCode: 1007, reason: "invalid compressed data")
                default:
                    throw WebSocketProtocolError(closeCode: 1011, reason: "zlib inflate failed (\(rc))")
                }
            }
        }
    }

    /// Geometric growth like Array's own, but never past `limit`: Array would double to up to 2 x limit.
    private static func growCapacity(of output: inout [UInt8], toFit extra: Int, limit: Int) {
        let needed = output.count + extra
        guard needed > output.capacity else { return }
        output.reserveCapacity(min(max(needed, output.capacity * 2), limit))
    }

    /// After a BFINAL block zlib accepts no more input; start a new raw stream primed with the old window.
    private func restartKeepingWindow(_ strm: UnsafeMutablePointer<z_stream>) throws(WebSocketProtocolError) {
        let windowSize = 1 << windowBits
        let dictionary = UnsafeMutablePointer<UInt8>.allocate(capacity: windowSize)
        defer { dictionary.deallocate() }
        var length: uInt = 0
        let savedIn = strm.pointee.next_in, savedAvail = strm.pointee.avail_in
        guard inflateGetDictionary(strm, dictionary, &length) == Z_OK, inflateReset(strm) == Z_OK,
              length == 0 || inflateSetDictionary(strm, dictionary, length) == Z_OK else {
            throw WebSocketProtocolError(closeCode: 1011, reason: "zlib inflate reset failed")
        }
        strm.pointee.next_in = savedIn
        strm.pointee.avail_in = savedAvail
    }

    private func acquireStream() throws(WebSocketProtocolError) -> UnsafeMutablePointer<z_stream> {
        if let stream { return stream }
        // zlib keeps a back-pointer to the z_stream, so it must live at a fixed heap address.
        let strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        // Negative windowBits: raw DEFLATE without zlib header (RFC 7692 §7.2).
        guard czlib_inflateInit2(strm, -Int32(windowBits)) == Z_OK else {
            strm.deallocate()
            throw WebSocketProtocolError(closeCode: 1011, reason: "zlib inflateInit2 failed")
        }
        stream = strm
        return strm
    }

    private func releaseStream() {
        inputEndedWithFinalBlock = false
        messageHasInput = false
        guard let strm = stream else { return }
        inflateEnd(strm)
        strm.deallocate()
        stream = nil
    }
}
