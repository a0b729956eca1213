import Base64

/// RFC 6455 §4.1 client side of the opening handshake, for the load-test harness and tests.
extension WebSocketHandshake {
    /// The upgrade request bytes: GET `path` HTTP/1.1 with Host, Upgrade, Connection,
    /// Sec-WebSocket-Key, Sec-WebSocket-Version: 13, then Sec-WebSocket-Protocol (comma list)
    /// when `subprotocols` is non-empty, Sec-WebSocket-Extensions when given, then
    /// `extraHeaders` (e.g. Origin). `path` should include any query string.
    public static func clientRequest(host: String, path: String, key: String, subprotocols: [String] = [], extensions: String? = nil, extraHeaders: HTTPHeaders = .init()) -> [UInt8] {
        var text = "GET \(path) HTTP/1.1\r\n"
        text += "Host: \(host)\r\n"
        text += "Upgrade: websocket\r\n"
        text += "Connection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\n"
        text += "Sec-WebSocket-Version: \(version)\r\n"
        if !subprotocols.isEmpty {
            text += "Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))\r\n"
        }
        if let extensions {
            text += "Sec-WebSocket-Extensions: \(extensions)\r\n"
        }
        for field in extraHeaders {
            text += "\(field.name): \(field.value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Checks a 101 response against the key we sent (status, Upgrade, Connection, Accept);
    /// returns the extensions and protocol headers. Whether those are ones the client
    /// offered is for the caller to check (RFC 6455 §4.1 steps 5–6).
    /// - Throws: "unexpected_status" (status = the server's), or status 502 with
    ///   "missing_upgrade", "missing_connection_upgrade", "invalid_accept".
    public static func validateServerResponse(_ head: HTTPResponseHead, key: String) throws(WebSocketHandshakeError) -> (extensions: String?, subprotocol: String?) {
        guard head.status == 101 else {
            throw WebSocketHandshakeError(
                status: head.status, code: "unexpected_status",
                message: "server answered \(head.status) instead of 101 Switching Protocols")
        }
        guard head.headers.containsToken("websocket", in: "Upgrade") else {
            throw badResponse("missing_upgrade", "Upgrade header must contain \"websocket\"")
        }
        guard head.headers.containsToken("upgrade", in: "Connection") else {
            throw badResponse("missing_connection_upgrade", "Connection header must contain \"Upgrade\"")
        }
        guard head.headers.values("Sec-WebSocket-Accept") == [acceptKey(for: key)] else {
            throw badResponse("invalid_accept", "Sec-WebSocket-Accept does not match the key sent")
        }
        let extensions = head.headers.values("Sec-WebSocket-Extensions")
        return (
            extensions: extensions.isEmpty ? nil : extensions.joined(separator: ", "),
            subprotocol: head.headers["Sec-WebSocket-Protocol"]
        )
    }

    /// A fresh Sec-WebSocket-Key: base64 of 16 bytes from `rng` (RFC 6455 §4.1 wants them
    /// random per connection; pass a seeded generator for reproducible tests).
    public static func generateKey<R: RandomNumberGenerator>(using rng: inout R) -> String {
        var nonce: [UInt8] = []
        nonce.reserveCapacity(16)
        for _ in 0..<2 {
            let word = rng.next()
            for shift in stride(from: 0, to: 64, by: 8) {
                nonce.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return Base64.encode(nonce)
    }

    private static func badResponse(_ code: String, _ message: String) -> WebSocketHandshakeError {
        WebSocketHandshakeError(status: 502, code: code, message: message)
    }
}
