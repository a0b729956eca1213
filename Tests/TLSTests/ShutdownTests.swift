import Testing
@testable import TLS

@Suite struct ShutdownTests {
    @Test(arguments: [Delivery.whole, .byteByByte])
    func closeNotifyIsReportedAsClosedAfterTheData(delivery: Delivery) throws {
        let pair = try Contexts.pair(delivery: delivery)
        try pair.handshake()
        try pair.client.write("last words")
        pair.client.shutdown()
        #expect(pair.client.hasPendingCiphertext)
        pair.pump()
        #expect(pair.serverStatus == .closed)
        #expect(String(decoding: pair.serverReceived, as: UTF8.self) == "last words")
        // The client only half-closed: it still reads until the server answers in kind.
        #expect(pair.clientStatus == .ok)
        pair.server.shutdown()
        pair.pump()
        #expect(pair.clientStatus == .closed)
        #expect(pair.serverError == nil && pair.clientError == nil)
        // `.closed` is sticky.
        var more: [UInt8] = []
        #expect(try pair.server.readPlaintext(into: &more) == .closed)
        #expect(more.isEmpty)
    }

    @Test func shutdownIsIdempotent() throws {
        let pair = try Contexts.pair()
        try pair.handshake()
        pair.client.shutdown()
        var first: [UInt8] = []
        pair.client.takePendingCiphertext(into: &first)
        pair.client.shutdown()
        #expect(!first.isEmpty)
        #expect(!pair.client.hasPendingCiphertext)
    }

    @Test func writingAfterShutdownThrows() throws {
        let pair = try Contexts.pair()
        try pair.handshake()
        pair.client.shutdown()
        #expect(throws: TLSError.self) { try pair.client.write("too late") }
    }

    @Test func shutdownBeforeHandshakeSendsCloseNotifyAfterIt() throws {
        let pair = try Contexts.pair()
        try pair.client.write("queued")
        pair.client.shutdown()
        try pair.handshake()
        #expect(pair.client.isHandshakeComplete)
        #expect(String(decoding: pair.serverReceived, as: UTF8.self) == "queued")
        #expect(pair.serverStatus == .closed)
    }
}
