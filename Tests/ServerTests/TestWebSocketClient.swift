import HTTP1
import WebSocketCodec
import WebSocketDeflate

/// A minimal blocking WebSocket client over `RawClient`, built from the project's own codec (client role).
final class TestWebSocketClient {
    enum Received: Equatable {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        case close(UInt16?, String)
    }

    let raw: RawClient
    private var decoder: WebSocketDecoder
    private var received: [Received] = []
    private var deflater: PerMessageDeflater?
    private(set) var extensionsHeader: String?
    private var rng = SystemRandomNumberGenerator()

    init(port: UInt16, path: String = "/", extensions: String? = nil, extraHeaders: HTTPHeaders = .init()) throws {
        raw = try RawClient(port: port)
        let key = WebSocketHandshake.generateKey(using: &rng)
        raw.send(WebSocketHandshake.clientRequest(host: "127.0.0.1", path: path, key: key, extensions: extensions, extraHeaders: extraHeaders))
        let response = try raw.readResponse()
        guard response.head.status == 101 else { throw TestFailure("upgrade refused: \(response.head.status)") }
        let negotiated = try WebSocketHandshake.validateServerResponse(response.head, key: key)
        extensionsHeader = negotiated.extensions
        let limits = WebSocketLimits(maxFrameSize: 1 << 26, maxMessageSize: 1 << 26)
        if let header = negotiated.extensions, let offer = extensions {
            let parameters = try PerMessageDeflateNegotiation.acceptServerResponse(header, offer: offer)
            decoder = WebSocketDecoder(role: .client, limits: limits,
                                       inflater: PerMessageInflater(windowBits: parameters.serverMaxWindowBits,
                                                                    noContextTakeover: parameters.serverNoContextTakeover))
            deflater = PerMessageDeflater(windowBits: parameters.clientMaxWindowBits, noContextTakeover: parameters.clientNoContextTakeover)
        } else {
            decoder = WebSocketDecoder(role: .client, limits: limits)
        }
    }

    func sendFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false, masked: Bool = true) {
        raw.send(WebSocketFrameEncoder.frame(opcode: opcode, payload: payload, fin: fin, rsv1: rsv1,
                                             maskKey: masked ? UInt32.random(in: 0...UInt32.max, using: &rng) : nil))
    }

    func send(text: String) { sendFrame(.text, Array(text.utf8)) }

    /// Sends a compressed message (needs a negotiated deflate).
    func sendCompressed(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        var out: [UInt8] = []
        payload.withUnsafeBytes { deflater!.compress($0, into: &out) }
        sendFrame(opcode, out, rsv1: true)
    }

    /// The next event from the server, or nil on EOF/timeout.
    func receive() throws -> Received? {
        while received.isEmpty {
            if !raw.buffer.isEmpty {
                var events: [Received] = []
                let consumed = try raw.buffer.withUnsafeMutableBytes { buffer in
                    try decoder.decode(buffer) { event in
                        switch event {
                        case .message(let opcode, let payload):
                            events.append(opcode == .text ? .text(String(decoding: payload, as: UTF8.self)) : .binary(Array(payload)))
                        case .ping(let p): events.append(.ping(Array(p)))
                        case .pong(let p): events.append(.pong(Array(p)))
                        case .close(let code, let reason): events.append(.close(code, String(decoding: reason, as: UTF8.self)))
                        }
                    }
                }
                raw.buffer.removeFirst(consumed)
                received.append(contentsOf: events)
                if !received.isEmpty { break }
            }
            guard raw.fill() else { return nil }
        }
        return received.removeFirst()
    }
}
