import EventLoop
import WebSocketCodec

/// One message sent to many sockets of one loop (a publish to every device of a user): its uncompressed frame is
/// built once, on first use, and every plain-TCP socket that sends it uncompressed queues those same bytes by
/// reference, so a fan-out copies and encodes nothing per socket. Sockets with TLS or compression fall back to
/// `WebSocket.send(opcode:payload:)` (their bytes differ per socket).
/// Loop thread only (the frame is built lazily).
public final class WebSocketBroadcast {
    public let opcode: WebSocketOpcode
    public let payload: [UInt8]
    private var encoded: SharedBytes?

    public init(opcode: WebSocketOpcode = .text, payload: [UInt8]) {
        self.opcode = opcode
        self.payload = payload
    }

    /// Header and payload, unmasked and uncompressed (RFC 6455 §5.2).
    var frame: SharedBytes {
        if let encoded { return encoded }
        let frame = payload.withUnsafeBytes { payload in
            withUnsafeTemporaryAllocation(byteCount: WebSocketFrameEncoder.maxHeaderSize, alignment: 1) { header in
                let n = WebSocketFrameEncoder.writeHeader(opcode: opcode, fin: true, rsv1: false, payloadLength: payload.count,
                                                          maskKey: nil, to: header.baseAddress!)
                return SharedBytes(count: n + payload.count) { out in
                    out.copyMemory(from: UnsafeRawBufferPointer(rebasing: header[0..<n]))
                    UnsafeMutableRawBufferPointer(rebasing: out[n...]).copyMemory(from: payload)
                }
            }
        }
        encoded = frame
        return frame
    }
}
