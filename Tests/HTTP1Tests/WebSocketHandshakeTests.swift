import Base64
import Testing
@testable import HTTP1

@Suite struct WebSocketHandshakeTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    static let validFields: [(name: String, value: String)] = [
        (name: "Host", value: "server.example.com"),
        (name: "Upgrade", value: "websocket"),
        (name: "Connection", value: "Upgrade"),
        (name: "Sec-WebSocket-Key", value: key),
        (name: "Sec-WebSocket-Version", value: "13"),
    ]

    /// A valid handshake head with `name` removed (when `value` is nil) or replaced.
    static func head(method: String = "GET", versionMinor: Int = 1, setting name: String? = nil, to value: String? = nil, adding extra: [(name: String, value: String)] = []) -> HTTPRequestHead {
        var headers = HTTPHeaders(validFields)
        if let name {
            headers.remove(name: name)
            if let value { headers.add(name: name, value: value) }
        }
        for field in extra { headers.add(name: field.name, value: field.value) }
        return HTTPRequestHead(method: method, target: "/chat", versionMinor: versionMinor, headers: headers)
    }

    static func validateError(_ head: HTTPRequestHead, policy: WebSocketUpgradePolicy = .init()) -> WebSocketHandshakeError? {
        if case .failure(let error) = WebSocketHandshake.validate(head, policy: policy) { return error }
        return nil
    }

    @Test func validRequestPasses() throws {
        let request = try WebSocketHandshake.validate(Self.head(), policy: .init()).get()
        #expect(request == WebSocketUpgradeRequest(key: Self.key))
        #expect(WebSocketHandshake.isUpgradeAttempt(Self.head()))
    }

    @Test func isUpgradeAttemptOnlyForWebSocketUpgrades() {
        #expect(WebSocketHandshake.isUpgradeAttempt(Self.head(setting: "Upgrade", to: "h2c, WebSocket")))
        #expect(!WebSocketHandshake.isUpgradeAttempt(Self.head(setting: "Upgrade", to: "h2c")))
        #expect(!WebSocketHandshake.isUpgradeAttempt(HTTPRequestHead(method: "GET", target: "/healthz")))
    }

    static let failures: [(head: HTTPRequestHead, status: Int, code: String, message: String)] = [
        (head(method: "POST"), 405, "method_not_get", "WebSocket upgrade requires the GET method"),
        (head(versionMinor: 0), 400, "http_version", "WebSocket upgrade requires HTTP/1.1 or later"),
        (head(setting: "Host"), 400, "missing_host", "Host header must be present exactly once"),
        (head(setting: "Host", to: ""), 400, "missing_host", "Host header must be present exactly once"),
        (head(adding: [(name: "Host", value: "other")]), 400, "missing_host", "Host header must be present exactly once"),
        (head(setting: "Upgrade"), 400, "missing_upgrade", "Upgrade header must contain \"websocket\""),
        (head(setting: "Upgrade", to: "h2c"), 400, "missing_upgrade", "Upgrade header must contain \"websocket\""),
        (head(setting: "Connection"), 400, "missing_connection_upgrade", "Connection header must contain \"Upgrade\""),
        (head(setting: "Connection", to: "keep-alive"), 400, "missing_connection_upgrade", "Connection header must contain \"Upgrade\""),
        (head(setting: "Sec-WebSocket-Key"), 400, "missing_key", "Sec-WebSocket-Key header is missing"),
        (head(adding: [(name: "Sec-WebSocket-Key", value: key)]), 400, "invalid_key", "Sec-WebSocket-Key must appear exactly once"),
        (head(setting: "Sec-WebSocket-Key", to: "not base64!"), 400, "invalid_key", "Sec-WebSocket-Key must be base64 of 16 bytes"),
        // 15 and 17 bytes of nonce.
        (head(setting: "Sec-WebSocket-Key", to: Base64.encode([UInt8](repeating: 7, count: 15))), 400, "invalid_key", "Sec-WebSocket-Key must be base64 of 16 bytes"),
        (head(setting: "Sec-WebSocket-Key", to: Base64.encode([UInt8](repeating: 7, count: 17))), 400, "invalid_key", "Sec-WebSocket-Key must be base64 of 16 bytes"),
        (head(setting: "Sec-WebSocket-Version", to: "8"), 426, "unsupported_version", "Sec-WebSocket-Version must be 13"),
        (head(setting: "Sec-WebSocket-Version"), 426, "unsupported_version", "Sec-WebSocket-Version must be 13"),
        (head(setting: "Sec-WebSocket-Version", to: "13, 8"), 426, "unsupported_version", "Sec-WebSocket-Version must be 13"),
    ]

    @Test(arguments: failures)
    func eachBrokenFieldHasItsOwnError(_ testCase: (head: HTTPRequestHead, status: Int, code: String, message: String)) throws {
        let error = try #require(Self.validateError(testCase.head))
        #expect(error.status == testCase.status)
        #expect(error.code == testCase.code)
        #expect(error.message == testCase.message)
    }

    @Test func methodRefusalCarriesAllow() throws {
        let error = try #require(Self.validateError(Self.head(method: "PUT")))
        #expect(error.extraHeaders["Allow"] == "GET")
    }

    @Test func version8Gets426WithSupportedVersion() throws {
        let error = try #require(Self.validateError(Self.head(setting: "Sec-WebSocket-Version", to: "8")))
        let response = error.response()
        #expect(response.status == 426)
        #expect(response.headers["Sec-WebSocket-Version"] == "13")
        #expect(response.headers["Content-Type"] == "application/json")
        let text = String(decoding: response.serialize(keepAlive: false), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
        #expect(text.contains("\r\nSec-WebSocket-Version: 13\r\n"))
        #expect(text.hasSuffix(#"{"error":{"status":426,"code":"unsupported_version","message":"Sec-WebSocket-Version must be 13"}}"#))
    }

    @Test(arguments: ["keep-alive, Upgrade", "UPGRADE", "upgrade,keep-alive", "Keep-Alive,\tupgrade "])
    func connectionTokenVariantsAreAccepted(connection: String) {
        #expect(Self.validateError(Self.head(setting: "Connection", to: connection)) == nil)
    }

    @Test func upgradeTokenIsCaseInsensitiveInLists() {
        #expect(Self.validateError(Self.head(setting: "Upgrade", to: "foo/2, WebSocket")) == nil)
    }

    @Test func originAllowList() throws {
        let policy = WebSocketUpgradePolicy(allowedOrigins: ["https://app.example.com", "http://localhost:3000"])
        let allowed = Self.head(adding: [(name: "Origin", value: "HTTPS://APP.example.com")])
        #expect(try WebSocketHandshake.validate(allowed, policy: policy).get().origin == "HTTPS://APP.example.com")
        let error = try #require(Self.validateError(Self.head(adding: [(name: "Origin", value: "https://evil.example")]), policy: policy))
        #expect(error.status == 403)
        #expect(error.code == "origin_not_allowed")
        // A prefix of an allowed origin is not that origin.
        #expect(Self.validateError(Self.head(adding: [(name: "Origin", value: "https://app.example.com.evil")]), policy: policy)?.status == 403)
        // No Origin (non-browser client) passes; empty list and "*" allow anything.
        #expect(Self.validateError(Self.head(), policy: policy) == nil)
        let evil = Self.head(adding: [(name: "Origin", value: "https://evil.example")])
        #expect(Self.validateError(evil, policy: .init()) == nil)
        #expect(Self.validateError(evil, policy: .init(allowedOrigins: ["https://a", "*"])) == nil)
    }

    @Test func subprotocolSelectionFollowsClientPreference() throws {
        let policy = WebSocketUpgradePolicy(supportedSubprotocols: ["json.v1", "chat.v2"])
        let head = Self.head(adding: [
            (name: "Sec-WebSocket-Protocol", value: "mqtt, chat.v2"),
            (name: "Sec-WebSocket-Protocol", value: "json.v1"),
            (name: "Sec-WebSocket-Extensions", value: "permessage-deflate; client_max_window_bits"),
            (name: "Sec-WebSocket-Extensions", value: "x-foo"),
        ])
        let request = try WebSocketHandshake.validate(head, policy: policy).get()
        #expect(request.offeredSubprotocols == ["mqtt", "chat.v2", "json.v1"])
        #expect(request.selectedSubprotocol == "chat.v2")
        #expect(request.extensionOffers == ["permessage-deflate; client_max_window_bits", "x-foo"])
        // Subprotocol names are case-sensitive; nothing supported → nil.
        let none = Self.head(adding: [(name: "Sec-WebSocket-Protocol", value: "JSON.V1")])
        #expect(try WebSocketHandshake.validate(none, policy: policy).get().selectedSubprotocol == nil)
    }

    @Test func acceptKeyMatchesRFC6455Example() {
        #expect(WebSocketHandshake.acceptKey(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func switchingProtocolsResponseBytes() {
        let plain = WebSocketHandshake.switchingProtocolsResponse(for: WebSocketUpgradeRequest(key: Self.key), extensionsHeader: nil)
        #expect(String(decoding: plain, as: UTF8.self) == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
        let negotiated = WebSocketUpgradeRequest(key: Self.key, offeredSubprotocols: ["chat"], selectedSubprotocol: "chat")
        let full = WebSocketHandshake.switchingProtocolsResponse(for: negotiated, extensionsHeader: "permessage-deflate")
        #expect(String(decoding: full, as: UTF8.self) == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: chat\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n")
    }
}
