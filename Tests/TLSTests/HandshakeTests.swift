import Testing
@testable import TLS

@Suite struct HandshakeTests {
    static let deliveries: [Delivery] = [
        .whole, .byteByByte, .randomSplits(seed: 7), .randomSplits(seed: 0xDEC0DE),
    ]

    @Test(arguments: deliveries)
    func handshakeCompletesWithALPNAndTLS13(delivery: Delivery) throws {
        let pair = try Contexts.pair(delivery: delivery)
        #expect(!pair.server.isHandshakeComplete)
        #expect(pair.client.protocolVersion == nil)
        try pair.handshake()
        #expect(pair.serverError == nil)
        #expect(pair.clientError == nil)
        #expect(pair.server.isHandshakeComplete)
        #expect(pair.client.isHandshakeComplete)
        #expect(pair.server.negotiatedALPN == "http/1.1")
        #expect(pair.client.negotiatedALPN == "http/1.1")
        #expect(pair.server.protocolVersion == "TLSv1.3")
        #expect(pair.client.protocolVersion == "TLSv1.3")
        #expect(pair.serverReceived.isEmpty && pair.clientReceived.isEmpty)
    }

    @Test func startHandshakeProducesClientHello() throws {
        let pair = try Contexts.pair()
        #expect(!pair.client.hasPendingCiphertext)
        try pair.client.startHandshake()
        #expect(pair.client.hasPendingCiphertext)
        var hello: [UInt8] = []
        pair.client.takePendingCiphertext(into: &hello)
        // RFC 8446 §5.1: handshake record (22) carrying a ClientHello (§4: type 1).
        #expect(hello.count > 5)
        #expect(hello[0] == 22 && hello[5] == 1)
        #expect(!pair.client.hasPendingCiphertext)
        // A server with nothing received has nothing to say.
        #expect(!pair.server.hasPendingCiphertext)
    }

    @Test func serverPicksItsOwnPreferenceAmongOfferedProtocols() throws {
        let pair = try EnginePair(server: Contexts.server(alpn: ["h2", "http/1.1"]),
                                  client: Contexts.trustingClient(alpn: ["http/1.1", "h2"]))
        try pair.handshake()
        #expect(pair.server.negotiatedALPN == "h2")
        #expect(pair.client.negotiatedALPN == "h2")
    }

    @Test func noCommonProtocolMeansNoALPNButNoFailure() throws {
        let pair = try EnginePair(server: Contexts.server(alpn: ["http/1.1"]),
                                  client: Contexts.trustingClient(alpn: ["spdy/3", "x"]))
        try pair.handshake()
        #expect(pair.serverError == nil && pair.clientError == nil)
        #expect(pair.server.isHandshakeComplete && pair.client.isHandshakeComplete)
        #expect(pair.server.negotiatedALPN == nil)
        #expect(pair.client.negotiatedALPN == nil)
    }

    @Test func clientWithoutALPNGetsNone() throws {
        let pair = try EnginePair(server: Contexts.server(), client: Contexts.trustingClient(alpn: []))
        try pair.handshake()
        #expect(pair.server.isHandshakeComplete)
        #expect(pair.server.negotiatedALPN == nil)
    }

    @Test func tls12ClientNegotiatesTLS12() throws {
        let pair = try EnginePair(server: Contexts.server(),
                                  client: Contexts.trustingClient(maximumVersion: .tls12))
        try pair.handshake()
        #expect(pair.server.protocolVersion == "TLSv1.2")
        #expect(pair.client.protocolVersion == "TLSv1.2")
        #expect(pair.client.negotiatedALPN == "http/1.1")
    }

    @Test func serverRefusesTLS11() throws {
        let fixture = try CertificateFixture.get()
        let client = try TLSContext.client(caFile: fixture.certificate, minimumVersion: .tls11,
                                           maximumVersion: .tls11)
        let pair = try EnginePair(server: Contexts.server(), client: client)
        try pair.client.startHandshake()
        // The client really offers TLS 1.1: the refusal below is the server's doing.
        #expect(pair.client.hasPendingCiphertext)
        pair.pump()
        let serverError = try #require(pair.serverError)
        #expect(serverError.message.contains("unsupported protocol"))
        // The server's protocol_version alert (RFC 8446 §6.2) reaches the client.
        let clientError = try #require(pair.clientError)
        #expect(clientError.message.contains("protocol version"))
        #expect(!pair.server.isHandshakeComplete && !pair.client.isHandshakeComplete)
    }

    @Test func emptyVersionRangeIsRejected() throws {
        #expect(throws: TLSError.self) {
            try TLSContext.client(minimumVersion: .tls13, maximumVersion: .tls12)
        }
    }
}
