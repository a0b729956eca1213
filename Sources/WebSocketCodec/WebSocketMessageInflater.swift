/// The decoder's hook for a compression extension (RFC 7692 permessage-deflate lives in WebSocketDeflate).
/// The codec stays free of zlib: it calls this for the payload of every frame of a message whose first frame had RSV1 set.
/// Owned by one connection; not thread-safe.
///
/// How `WebSocketDecoder` drives it: the payload is streamed as it arrives, so one frame's payload may come in
/// several consecutive calls (each with the next unmasked piece; empty pieces are skipped). `isFinal` is true
/// exactly once per message, on the call carrying the last bytes of the FIN frame — that call may have an empty
/// `input` (e.g. an empty final frame). `output` is the decoder's message buffer: append only, never remove.
/// After a throw the decoder fails the connection and never calls again for that message.
public protocol WebSocketMessageInflater: AnyObject {
    /// Inflates one frame's payload of a compressed message and appends the output to `output`.
    /// - `isFinal`: this is the message's last frame (the inflater appends the 0x00 0x00 0xff 0xff tail, RFC 7692 §7.2.2).
    /// - `limit`: the most bytes `output` may hold for this message; exceeding it throws close code 1009.
    /// Corrupt compressed data throws close code 1007.
    func inflate(_ input: UnsafeRawBufferPointer, isFinal: Bool, into output: inout [UInt8], limit: Int) throws(WebSocketProtocolError)
}
