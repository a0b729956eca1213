import Testing
@testable import TLS

@Suite struct DataTransferTests {
    @Test(arguments: [Delivery.whole, .byteByByte, .randomSplits(seed: 42)])
    func smallMessagesBothWays(delivery: Delivery) throws {
        let pair = try Contexts.pair(delivery: delivery)
        try pair.handshake()
        try pair.client.write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        pair.pump()
        #expect(String(decoding: pair.serverReceived, as: UTF8.self) == "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        try pair.server.write("HTTP/1.1 101 Switching Protocols\r\n\r\n")
        try pair.server.write([0x81, 0x02, 0x68, 0x69])
        pair.pump()
        #expect(pair.clientReceived == Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8) + [0x81, 0x02, 0x68, 0x69])
        #expect(pair.serverError == nil && pair.clientError == nil)
        #expect(pair.serverStatus == .ok && pair.clientStatus == .ok)
    }

    @Test func byteByByteAcrossSeveralRecords() throws {
        let pair = try Contexts.pair(delivery: .byteByByte)
        try pair.handshake()
        // 40 000 bytes span three TLS records (RFC 8446 §5.1: at most 2^14 plaintext bytes each).
        let upstream = pattern(count: 40_000, seed: 3)
        let downstream = pattern(count: 40_000, seed: 4)
        try pair.client.write(upstream)
        try pair.server.write(downstream)
        pair.pump()
        #expect(pair.serverReceived == upstream)
        #expect(pair.clientReceived == downstream)
    }

    @Test(arguments: [UInt64(1), 99])
    func oneMebibyteInPiecesBothWays(seed: UInt64) throws {
        let pair = try Contexts.pair(delivery: .randomSplits(seed: seed))
        try pair.handshake()
        let upstream = pattern(count: 1 << 20, seed: seed)
        let downstream = pattern(count: 1 << 20, seed: seed &+ 1)
        var random = SplitMix64(state: seed)
        var offset = 0
        while offset < upstream.count {
            let end = min(upstream.count, offset + Int.random(in: 1...70_000, using: &random))
            try pair.client.write(Array(upstream[offset..<end]))
            try pair.server.write(Array(downstream[offset..<end]))
            // Interleave pumping with writing, as a real loop would.
            if Bool.random(using: &random) { pair.pump() }
            offset = end
        }
        pair.pump()
        #expect(pair.serverError == nil && pair.clientError == nil)
        #expect(pair.serverReceived.count == upstream.count)
        #expect(pair.serverReceived == upstream)
        #expect(pair.clientReceived == downstream)
    }

    @Test func largeBurstDoesNotPinBufferMemory() throws {
        let pair = try Contexts.pair()
        try pair.handshake()
        try pair.server.write(pattern(count: 1 << 20, seed: 5))
        #expect(pair.server.outboundBufferCapacity > TLSEngine.bioShrinkThreshold)
        pair.pump()
        #expect(pair.clientReceived.count == 1 << 20)
        // Drained buffers that grew past the threshold are replaced by fresh ones.
        #expect(pair.server.outboundBufferCapacity <= TLSEngine.bioShrinkThreshold)
        #expect(pair.client.inboundBufferCapacity <= TLSEngine.bioShrinkThreshold)
        // …and the connection keeps working on the new buffers.
        try pair.client.write("still there")
        try pair.server.write("yes")
        pair.pump()
        #expect(pair.serverReceived == Array("still there".utf8))
        #expect(pair.clientReceived.suffix(3) == Array("yes".utf8)[...])
    }

    @Test func writesBeforeHandshakeAreDeliveredAfterIt() throws {
        let pair = try Contexts.pair(delivery: .randomSplits(seed: 11))
        try pair.client.write("early from client")
        try pair.server.write("early from server")
        // Nothing may leave before the handshake: the server has not even seen a ClientHello.
        #expect(!pair.server.hasPendingCiphertext)
        try pair.client.write(", more")
        try pair.handshake()
        #expect(pair.server.isHandshakeComplete)
        #expect(String(decoding: pair.serverReceived, as: UTF8.self) == "early from client, more")
        #expect(String(decoding: pair.clientReceived, as: UTF8.self) == "early from server")
        // Later writes follow the early ones in order.
        try pair.client.write("!")
        pair.pump()
        #expect(String(decoding: pair.serverReceived, as: UTF8.self) == "early from client, more!")
    }

    @Test func emptyWriteProducesNothing() throws {
        let pair = try Contexts.pair()
        try pair.handshake()
        try pair.client.write([UInt8]())
        #expect(!pair.client.hasPendingCiphertext)
    }
}

/// Deterministic pseudo-random bytes, so a mismatch cannot hide behind repeated content.
func pattern(count: Int, seed: UInt64) -> [UInt8] {
    var random = SplitMix64(state: seed)
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        for index in 0..<count {
            buffer[index] = UInt8(truncatingIfNeeded: random.next() >> 32)
        }
        initialized = count
    }
}
