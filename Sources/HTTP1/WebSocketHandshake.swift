import Base64

/// RFC 6455 §4 opening handshake, server side (this file) and client side
/// (`WebSocketHandshake+Client.swift`). Pure functions, safe from any thread.
public enum WebSocketHandshake {
    /// RFC 6455 §1.3: the GUID appended to the key before hashing.
    static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// RFC 6455 §4.1: the only version this implementation speaks.
    static let version = "13"

    /// True when the request asks for a WebSocket (an Upgrade header containing the token
    /// "websocket"); other requests are plain HTTP.
    public static func isUpgradeAttempt(_ head: HTTPRequestHead) -> Bool {
        head.headers.containsToken("websocket", in: "Upgrade")
    }

    /// Validates every RFC 6455 §4.2.1 rule, first failure wins, in this order:
    /// method GET (else 405 "method_not_get" with "Allow: GET"), HTTP/1.1 or later (400),
    /// exactly one non-empty Host (400), Upgrade contains "websocket" (400), Connection
    /// contains "upgrade" (400; tokens case-insensitive, comma lists allowed),
    /// Sec-WebSocket-Key present (400 "missing_key") exactly once and base64 of exactly 16
    /// bytes (400 "invalid_key"), Sec-WebSocket-Version exactly "13" (426 +
    /// "Sec-WebSocket-Version: 13"), Origin — when present and the allow-list is non-empty —
    /// allowed (403). A request body is ignored.
    public static func validate(_ head: HTTPRequestHead, policy: WebSocketUpgradePolicy) -> Result<WebSocketUpgradeRequest, WebSocketHandshakeError> {
        let headers = head.headers
        guard head.method == "GET" else {
            return .failure(WebSocketHandshakeError(
                status: 405, code: "method_not_get",
                message: "WebSocket upgrade requires the GET method",
                extraHeaders: HTTPHeaders([(name: "Allow", value: "GET")])))
        }
        guard head.versionMinor >= 1 else {
            return .failure(badRequest("http_version", "WebSocket upgrade requires HTTP/1.1 or later"))
        }
        let hosts = headers.values("Host")
        guard hosts.count == 1, !hosts[0].isEmpty else {
            return .failure(badRequest("missing_host", "Host header must be present exactly once"))
        }
        guard headers.containsToken("websocket", in: "Upgrade") else {
            return .failure(badRequest("missing_upgrade", "Upgrade header must contain \"websocket\""))
        }
        guard headers.containsToken("upgrade", in: "Connection") else {
            return .failure(badRequest("missing_connection_upgrade", "Connection header must contain \"Upgrade\""))
        }
        let keys = headers.values("Sec-WebSocket-Key")
        guard !keys.isEmpty else {
            return .failure(badRequest("missing_key", "Sec-WebSocket-Key header is missing"))
        }
        guard keys.count == 1 else {
            return .failure(badRequest("invalid_key", "Sec-WebSocket-Key must appear exactly once"))
        }
        guard let nonce = Base64.decode(keys[0]), nonce.count == 16 else {
            return .failure(badRequest("invalid_key", "Sec-WebSocket-Key must be base64 of 16 bytes"))
        }
        guard headers.values("Sec-WebSocket-Version") == [version] else {
            // RFC 6455 §4.2.2 step 4: answer 426 listing the versions we do speak.
            return .failure(WebSocketHandshakeError(
                status: 426, code: "unsupported_version",
                message: "Sec-WebSocket-Version must be 13",
                extraHeaders: HTTPHeaders([(name: "Sec-WebSocket-Version", value: version)])))
        }
        let origin = headers["Origin"]
        if let origin, !policy.allows(origin: origin) {
            return .failure(WebSocketHandshakeError(
                status: 403, code: "origin_not_allowed", message: "Origin is not allowed"))
        }

        var offered: [String] = []
        for value in headers.values("Sec-WebSocket-Protocol") {
            offered += ASCII.listElements(value).map(String.init)
        }
        return .success(WebSocketUpgradeRequest(
            key: keys[0],
            origin: origin,
            offeredSubprotocols: offered,
            extensionOffers: headers.values("Sec-WebSocket-Extensions"),
            selectedSubprotocol: offered.first { policy.supportedSubprotocols.contains($0) }
        ))
    }

    /// base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")) (RFC 6455 §4.2.2 step 5.4;
    /// §1.3 example: "dGhlIHNhbXBsZSBub25jZQ==" → "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=").
    public static func acceptKey(for key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + acceptGUID).utf8)))
    }

    /// The 101 Switching Protocols response bytes: Upgrade, Connection, Sec-WebSocket-Accept,
    /// then Sec-WebSocket-Protocol when a subprotocol was selected and
    /// Sec-WebSocket-Extensions when `extensionsHeader` is non-nil (the negotiated value).
    public static func switchingProtocolsResponse(for request: WebSocketUpgradeRequest, extensionsHeader: String?) -> [UInt8] {
        var headers = HTTPHeaders([
            (name: "Upgrade", value: "websocket"),
            (name: "Connection", value: "Upgrade"),
            (name: "Sec-WebSocket-Accept", value: acceptKey(for: request.key)),
        ])
        if let protocolName = request.selectedSubprotocol {
            headers.add(name: "Sec-WebSocket-Protocol", value: protocolName)
        }
        if let extensionsHeader {
            headers.add(name: "Sec-WebSocket-Extensions", value: extensionsHeader)
        }
        return HTTPResponse(status: 101, headers: headers).serialize(keepAlive: true)
    }

    static func badRequest(_ code: String, _ message: String) -> WebSocketHandshakeError {
        WebSocketHandshakeError(status: 400, code: code, message: message)
    }
}
