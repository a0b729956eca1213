import Foundation
import Glibc
import HTTP1
import WebSocketCodec

/// A blocking gateway client for tests: its own upgrade (so the 101 head can be checked), the project's decoder
/// (client role), JSON frames parsed with JSONSerialization. Frames that arrive while the test waits for something
/// else are kept in order in `inbox`, so a `presence` event never swallows a `reply`.
///
/// Not thread-safe: one test thread drives it.
final class GatewayTestClient {
    enum Inbound {
        case json([String: Any])
        case close(UInt16?)
    }

    let raw: RawClient
    /// The server's 101 response.
    let handshake: HTTPResponseHead
    private var decoder = WebSocketDecoder(role: .client, limits: WebSocketLimits(maxFrameSize: 1 << 24, maxMessageSize: 1 << 24))
    private var inbox: [Inbound] = []
    private var nextID = 0
    private var rng = SystemRandomNumberGenerator()

    /// Upgrades `path` (query included); throws when the answer is not 101.
    init(port: UInt16, path: String, subprotocols: [String] = [], headers: [(String, String)] = []) throws {
        raw = try RawClient(port: port)
        let key = WebSocketHandshake.generateKey(using: &rng)
        raw.send(WebSocketHandshake.clientRequest(host: "127.0.0.1", path: path, key: key, subprotocols: subprotocols,
                                                  extraHeaders: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) })))
        let response = try raw.readResponse()
        guard response.head.status == 101 else {
            throw TestFailure("upgrade refused: \(response.head.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        _ = try WebSocketHandshake.validateServerResponse(response.head, key: key)
        handshake = response.head
    }

    // MARK: Sending

    func send(_ object: [String: Any]) {
        send(text: String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    func send(text: String) { sendFrame(.text, Array(text.utf8)) }

    func sendFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        raw.send(WebSocketFrameEncoder.frame(opcode: opcode, payload: payload, maskKey: UInt32.random(in: 0...UInt32.max, using: &rng)))
    }

    /// Sends a command with a fresh id and returns its `reply` (events received meanwhile stay queued).
    @discardableResult
    func command(_ type: String, _ fields: [String: Any] = [:], timeout: Double = 3) throws -> [String: Any] {
        nextID += 1
        let id = "c\(nextID)"
        var object = fields
        object["type"] = type
        object["id"] = id
        send(object)
        return try next(timeout: timeout) { $0["type"] as? String == "reply" && $0["id"] as? String == id }
    }

    // MARK: Receiving

    /// The first JSON frame of `type`, removed from the inbox; throws after `timeout` seconds.
    func next(_ type: String, timeout: Double = 3) throws -> [String: Any] {
        try next(timeout: timeout) { $0["type"] as? String == type }
    }

    /// The first JSON frame matching `predicate`; throws after `timeout` seconds (or when the socket ends first).
    func next(timeout: Double = 3, where predicate: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        var scanned = 0
        while true {
            while scanned < inbox.count {
                if case .json(let object) = inbox[scanned], predicate(object) {
                    inbox.remove(at: scanned)
                    return object
                }
                scanned += 1
            }
            guard try readMore(until: deadline) else {
                throw TestFailure("no matching frame within \(timeout) s; received: \(inbox.map { "\($0)" }.joined(separator: " | "))")
            }
        }
    }

    /// Every JSON frame of `type` that arrives within `seconds` (and those already queued), removed from the inbox.
    func collect(_ type: String, for seconds: Double) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(seconds)
        while try readMore(until: deadline) {}
        var found: [[String: Any]] = []
        inbox.removeAll { item in
            guard case .json(let object) = item, object["type"] as? String == type else { return false }
            found.append(object)
            return true
        }
        return found
    }

    /// The code of the server's close frame; throws when none arrives within `timeout` seconds.
    func closeCode(timeout: Double = 3) throws -> UInt16? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            for item in inbox { if case .close(let code) = item { return code } }
            guard try readMore(until: deadline) else { throw TestFailure("no close frame within \(timeout) s") }
        }
    }

    /// Leaves like a client going away: close frame, then the TCP connection is shut down (the fd closes at deinit).
    func disconnect() {
        sendFrame(.close, [0x03, 0xE8])
        shutdown(raw.fd, Int32(SHUT_RDWR))
    }

    /// Reads and decodes what arrives before `deadline`; false when nothing new was decoded (timeout or EOF).
    private func readMore(until deadline: Date) throws -> Bool {
        let before = inbox.count
        // Bytes may already be buffered (a frame that came in the same segment as the 101).
        var mustRead = raw.buffer.isEmpty
        while inbox.count == before {
            if mustRead {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else { return false }
                var timeout = timeval(tv_sec: Int(remaining), tv_usec: min(Int((remaining - remaining.rounded(.down)) * 1_000_000) + 1000, 999_999))
                setsockopt(raw.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                guard raw.fill() else { return false }
            }
            mustRead = true
            var events: [Inbound] = []
            let consumed = try raw.buffer.withUnsafeMutableBytes { buffer in
                try decoder.decode(buffer) { event in
                    switch event {
                    case .message(let opcode, let payload):
                        let object = opcode == .text ? (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] : nil
                        events.append(.json(object ?? ["type": "unparsed", "opcode": "\(opcode)"]))
                    case .close(let code, _): events.append(.close(code))
                    case .ping, .pong: break
                    }
                }
            }
            raw.buffer.removeFirst(consumed)
            inbox.append(contentsOf: events)
        }
        return true
    }
}
