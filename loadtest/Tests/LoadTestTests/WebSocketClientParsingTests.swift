import EventLoop
import HTTP1
import Testing
import WebSocketCodec
import WebSocketDeflate
@testable import switchboard_load

/// The client's receive path (101 response, then frames) fed byte by byte and in random splits, the way a socket
/// may deliver it. The loop is never run: the client is driven directly, as `SocketConnection` would.
struct WebSocketClientParsingTests {
    /// Records what the client reports.
    final class Recorder: WebSocketClientDelegate {
        var opened = 0
        var messages: [[UInt8]] = []
        var ended: [String?] = []
        func clientDidOpen(_ client: WebSocketClient, upgradeMicroseconds: UInt64) { opened += 1 }
        func clientDidReceive(_ client: WebSocketClient, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
            messages.append(Array(payload))
        }
        func clientDidEnd(_ client: WebSocketClient, failure: String?) { ended.append(failure) }
    }

    private func makeClient(deflate: Bool) throws -> (WebSocketClient, Recorder) {
        let loop = try EventLoop()
        let settings = try ClientSettings(
            target: TargetURL(parsing: "ws://127.0.0.1:1/"), sourceAddresses: [], insecure: false, caFile: nil,
            deflate: deflate, maxMessageBytes: 1 << 20)
        let client = WebSocketClient(id: 0, loop: loop, settings: settings)
        let recorder = Recorder()
        client.delegate = recorder
        var random = FastRandom(seed: 1)
        client.start(source: nil, random: &random)
        if deflate { client.deflateOffer = PerMessageDeflateNegotiation.clientOffer() }
        return (client, recorder)
    }

    private func response(key: String, accept: String? = nil, extensions: String? = nil) -> [UInt8] {
        var text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Accept: \(accept ?? WebSocketHandshake.acceptKey(for: key))\r\n"
        if let extensions { text += "Sec-WebSocket-Extensions: \(extensions)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// Feeds `bytes` in chunks of the given sizes, keeping unconsumed bytes like `SocketConnection` does.
    private func feed(_ client: WebSocketClient, _ bytes: [UInt8], chunks: [Int]) {
        var pending: [UInt8] = []
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let size = min(chunks[index % chunks.count], bytes.count - offset)
            pending += bytes[offset..<(offset + size)]
            offset += size
            index += 1
            let consumed = pending.withUnsafeMutableBytes { client.consume($0) }
            pending.removeFirst(consumed)
        }
    }

    private func splits(_ random: inout FastRandom) -> [[Int]] {
        [[1], [2, 3], [1000]] + (0..<5).map { _ in (0..<16).map { _ in Int(1 + random.next() % 40) } }
    }

    @Test func upgradeThenMessagesInAnySplit() throws {
        var random = FastRandom(seed: 99)
        for chunks in splits(&random) {
            let (client, recorder) = try makeClient(deflate: false)
            var wire = response(key: client.handshakeKey)
            let payloads: [[UInt8]] = [Array("hello".utf8), Array(repeating: 7, count: 300), [], Array(repeating: 1, count: 70_000)]
            for payload in payloads { wire += WebSocketFrameEncoder.frame(opcode: .binary, payload: payload) }
            wire += WebSocketFrameEncoder.frame(opcode: .ping, payload: [1, 2])  // answered, not reported
            feed(client, wire, chunks: chunks)
            #expect(recorder.opened == 1, "chunks \(chunks)")
            #expect(recorder.messages == payloads, "chunks \(chunks)")
            #expect(recorder.ended.isEmpty)
            #expect(client.state == .open)
        }
    }

    @Test func compressedMessagesAreInflated() throws {
        var random = FastRandom(seed: 5)
        for chunks in splits(&random) {
            let (client, recorder) = try makeClient(deflate: true)
            let serverDeflater = PerMessageDeflateParameters().makeDeflater(role: .server)
            var wire = response(key: client.handshakeKey, extensions: "permessage-deflate")
            let payloads = (0..<4).map { Array(String(repeating: "abcdefgh\($0)", count: 40).utf8) }
            for payload in payloads {
                wire += WebSocketFrameEncoder.frame(opcode: .text, payload: serverDeflater.compress(payload), rsv1: true)
            }
            feed(client, wire, chunks: chunks)
            #expect(recorder.messages == payloads, "chunks \(chunks)")
            #expect(client.deflater != nil)
        }
    }

    @Test func wrongAcceptKeyFailsTheHandshake() throws {
        let (client, recorder) = try makeClient(deflate: false)
        feed(client, response(key: client.handshakeKey, accept: "bm90IHRoZSByaWdodCBrZXk="), chunks: [1])
        #expect(recorder.opened == 0)
        #expect(recorder.ended == ["handshake_invalid_accept"])
    }

    @Test func nonUpgradeStatusIsCountedByStatus() throws {
        let (client, recorder) = try makeClient(deflate: false)
        feed(client, Array("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n".utf8), chunks: [3])
        #expect(recorder.ended == ["http_503"])
    }

    @Test func unofferedExtensionIsRejected() throws {
        let (client, recorder) = try makeClient(deflate: false)
        feed(client, response(key: client.handshakeKey, extensions: "permessage-deflate"), chunks: [7])
        #expect(recorder.ended == ["handshake_bad_extension"])
    }

    @Test func serverCloseFirstIsAFailureWithItsCode() throws {
        let (client, recorder) = try makeClient(deflate: false)
        var wire = response(key: client.handshakeKey)
        wire += WebSocketFrameEncoder.frame(opcode: .close, payload: WebSocketFrameEncoder.closePayload(code: 1001, reason: "bye"))
        feed(client, wire, chunks: [5])
        #expect(recorder.ended == ["closed_by_server_1001"])
    }

    @Test func protocolViolationIsReported() throws {
        let (client, recorder) = try makeClient(deflate: false)
        var wire = response(key: client.handshakeKey)
        wire += WebSocketFrameEncoder.frame(opcode: .binary, payload: [1], maskKey: 0x01020304)  // servers must not mask
        feed(client, wire, chunks: [4])
        #expect(recorder.ended == ["protocol_error_1002"])
    }
}
