import Testing
import WebSocketCodec
@testable import WebSocketDeflate

@Suite struct RoundTripTests {
    static let sizes = [0, 1, 125, 64 * 1024, 1024 * 1024]

    @Test(arguments: sizes, [false, true])
    func randomAndCompressibleDataSurviveRoundTrip(size: Int, noContextTakeover: Bool) throws {
        let deflater = PerMessageDeflater(windowBits: 15, noContextTakeover: noContextTakeover)
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: noContextTakeover)
        for (index, message) in [TestData.random(size, seed: 1), TestData.compressible(size, seed: 2)].enumerated() {
            let compressed = deflater.compress(message)
            #expect(try inflater.inflateMessage(compressed) == message, "message \(index) of size \(size)")
            if index == 1 && size >= 64 * 1024 {
                #expect(compressed.count < size / 4, "text-like data must really compress")
            }
        }
    }

    @Test(arguments: [8, 9, 10, 12, 15])
    func severalWindowSizesAcrossManyMessages(windowBits: Int) throws {
        for noContextTakeover in [false, true] {
            let deflater = PerMessageDeflater(windowBits: windowBits, noContextTakeover: noContextTakeover, compressionLevel: 9, memLevel: 9)
            let inflater = PerMessageInflater(windowBits: windowBits, noContextTakeover: noContextTakeover)
            for round in 0..<12 {
                let size = [0, 1, 125, 300, 4096, 70_000][round % 6]
                let message = round % 2 == 0 ? TestData.compressible(size, seed: UInt64(round)) : TestData.random(size, seed: UInt64(round))
                #expect(try inflater.inflateMessage(deflater.compress(message)) == message, "round \(round)")
                // Empty messages never make the deflater touch zlib; the inflater still decodes their 0x00.
                // Otherwise state survives exactly when context is taken over.
                #expect(deflater.holdsZlibState == (!noContextTakeover && round > 0))
                #expect(inflater.holdsZlibState == !noContextTakeover)
            }
        }
    }

    @Test func contextTakeoverReusesTheDictionary() throws {
        let message = TestData.random(2000, seed: 7)  // incompressible on its own
        let takeover = PerMessageDeflater(windowBits: 15, noContextTakeover: false)
        let first = takeover.compress(message), second = takeover.compress(message)
        #expect(first.count > 1900)
        #expect(second.count < first.count / 10, "the second copy must be a back-reference into the first")

        let fresh = PerMessageDeflater(windowBits: 15, noContextTakeover: true)
        #expect(fresh.compress(message) == fresh.compress(message), "without takeover every message starts clean")

        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try inflater.inflateMessage(first) == message)
        #expect(try inflater.inflateMessage(second) == message)
    }

    @Test(arguments: [2, 3, 7, 40])
    func fragmentedMessagesInflateAcrossFrames(pieces: Int) throws {
        let deflater = PerMessageDeflater(windowBits: 15, noContextTakeover: false)
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: false)
        for round in 0..<4 {
            let message = TestData.compressible(20_000 + round * 333, seed: UInt64(pieces * 10 + round))
            let frames = randomSplit(deflater.compress(message), pieces: pieces, seed: UInt64(round))
            #expect(try inflater.inflateMessage(frames) == message)
        }
    }

    @Test func byteByByteFramesInflate() throws {
        let message = TestData.compressible(3000, seed: 99) + TestData.random(500, seed: 98)
        let compressed = PerMessageDeflater(windowBits: 11, noContextTakeover: true).compress(message)
        let inflater = PerMessageInflater(windowBits: 11, noContextTakeover: true)
        #expect(try inflater.inflateMessage(compressed.map { [$0] }) == message)
        #expect(!inflater.holdsZlibState)
    }

    @Test func eightBitWindowOutputFitsA256ByteInflateWindow() throws {
        // A 300-byte random block repeated: a 10-bit compressor references it 300 bytes back, which a
        // 256-byte inflate window must reject; the "8-bit" (zlib 9-bit) compressor must never do that.
        let block = TestData.random(300, seed: 5)
        let message = Array((0..<200).map { _ in block }.joined())
        let eight = PerMessageDeflater(windowBits: 8, noContextTakeover: false)
        let inflater = PerMessageInflater(windowBits: 8, noContextTakeover: false)
        for _ in 0..<3 {
            #expect(try inflater.inflateMessage(eight.compress(message)) == message)
        }
        let ten = PerMessageDeflater(windowBits: 10, noContextTakeover: true).compress(message)
        let strict = PerMessageInflater(windowBits: 8, noContextTakeover: true)
        do {
            let code = closeCode { _ = try strict.inflateMessage(ten) }
            #expect(code == 1007)
        }
    }

    @Test func roleHelpersPairTheRightDirections() throws {
        let offer = PerMessageDeflateNegotiation.clientOffer(clientMaxWindowBits: 9, serverMaxWindowBits: 8)
        let (response, serverSide) = try #require(PerMessageDeflateNegotiation.negotiate(offers: [offer], settings: .init()))
        let clientSide = try PerMessageDeflateNegotiation.acceptServerResponse(response, offer: offer)
        #expect(clientSide == serverSide)

        let serverDeflater = serverSide.makeDeflater(role: .server), serverInflater = serverSide.makeInflater(role: .server)
        let clientDeflater = clientSide.makeDeflater(role: .client), clientInflater = clientSide.makeInflater(role: .client)
        #expect(serverDeflater.windowBits == 8 && clientInflater.windowBits == 8)
        #expect(clientDeflater.windowBits == 9 && serverInflater.windowBits == 9)

        let message = TestData.compressible(50_000, seed: 3)
        #expect(try clientInflater.inflateMessage(serverDeflater.compress(message)) == message)
        #expect(try serverInflater.inflateMessage(clientDeflater.compress(message)) == message)
    }
}
