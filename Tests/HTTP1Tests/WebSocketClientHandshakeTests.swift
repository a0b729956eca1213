import Base64
import Testing
@testable import HTTP1

@Suite struct WebSocketClientHandshakeTests {
    @Test func generatedKeysAreValidAndVary() {
        var rng = SplitMix64(seed: 11)
        let keys = (0..<50).map { _ in WebSocketHandshake.generateKey(using: &rng) }
        #expect(Set(keys).count == 50)
        #expect(keys.allSatisfy { Base64.decode($0)?.count == 16 })
    }

    /// Client request → server parser + validation → 101 bytes → client parser + validation.
    @Test func roundTripAgainstTheServerSide() throws {
        var rng = SplitMix64(seed: 5)
        let key = WebSocketHandshake.generateKey(using: &rng)
        let requestBytes = WebSocketHandshake.clientRequest(
            host: "gw.example:8080", path: "/ws?room=lobby", key: key,
            subprotocols: ["mqtt", "chat.v2"], extensions: "permessage-deflate",
            extraHeaders: HTTPHeaders([(name: "Origin", value: "https://app.example")]))

        let parsed = feedRequests(byteByByte(requestBytes))
        let head = try #require(parsed.requests.first).head
        #expect(head.queryItem("room") == "lobby")
        #expect(WebSocketHandshake.isUpgradeAttempt(head))
        let policy = WebSocketUpgradePolicy(allowedOrigins: ["https://app.example"], supportedSubprotocols: ["chat.v2"])
        let upgrade = try WebSocketHandshake.validate(head, policy: policy).get()
        #expect(upgrade == WebSocketUpgradeRequest(
            key: key, origin: "https://app.example", offeredSubprotocols: ["mqtt", "chat.v2"],
            extensionOffers: ["permessage-deflate"], selectedSubprotocol: "chat.v2"))

        let responseBytes = WebSocketHandshake.switchingProtocolsResponse(for: upgrade, extensionsHeader: "permessage-deflate")
        let frame: [UInt8] = [0x81, 0x02, 0x68, 0x69]
        var parser = HTTPResponseParser()
        let (consumed, response) = try parseOneResponse(responseBytes + frame, parser: &parser)
        #expect(consumed == responseBytes.count)
        let negotiated = try WebSocketHandshake.validateServerResponse(try #require(response).head, key: key)
        #expect(negotiated.extensions == "permessage-deflate")
        #expect(negotiated.subprotocol == "chat.v2")
    }

    static func validHead(key: String) -> HTTPResponseHead {
        HTTPResponseHead(status: 101, reason: "Switching Protocols", headers: HTTPHeaders([
            (name: "Upgrade", value: "WebSocket"),
            (name: "Connection", value: "upgrade"),
            (name: "Sec-WebSocket-Accept", value: WebSocketHandshake.acceptKey(for: key)),
        ]))
    }

    @Test func serverResponseChecks() throws {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let ok = try WebSocketHandshake.validateServerResponse(Self.validHead(key: key), key: key)
        #expect(ok.extensions == nil && ok.subprotocol == nil)

        var wrongStatus = Self.validHead(key: key)
        wrongStatus.status = 403
        var noUpgrade = Self.validHead(key: key)
        noUpgrade.headers.remove(name: "Upgrade")
        var noConnection = Self.validHead(key: key)
        noConnection.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        var badAccept = Self.validHead(key: key)
        badAccept.headers.replaceOrAdd(name: "Sec-WebSocket-Accept", value: WebSocketHandshake.acceptKey(for: "AAAAAAAAAAAAAAAAAAAAAA=="))
        let cases: [(HTTPResponseHead, Int, String)] = [
            (wrongStatus, 403, "unexpected_status"),
            (noUpgrade, 502, "missing_upgrade"),
            (noConnection, 502, "missing_connection_upgrade"),
            (badAccept, 502, "invalid_accept"),
        ]
        for (head, status, code) in cases {
            let outcome = Result { () throws(WebSocketHandshakeError) in try WebSocketHandshake.validateServerResponse(head, key: key) }
            guard case .failure(let error) = outcome else {
                Issue.record("\(code) was accepted")
                continue
            }
            #expect(error.status == status)
            #expect(error.code == code)
        }
    }
}
