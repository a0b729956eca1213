import Testing
import WebSocketCodec
@testable import WebSocketDeflate

@Suite struct InflaterSafetyTests {
    /// ~100 KiB of compressed data that inflates to 100 MiB of zeros: 100 sync-flushed copies of 1 MiB.
    static func bomb() -> [UInt8] {
        var block = PerMessageDeflater(windowBits: 15, noContextTakeover: true).compress([UInt8](repeating: 0, count: 1 << 20))
        block += [0x00, 0x00, 0xFF, 0xFF]  // restore the stripped sync-flush block so copies concatenate
        var bomb: [UInt8] = []
        for _ in 0..<100 { bomb += block }
        return Array(bomb.dropLast(4))
    }

    @Test func decompressionBombStopsAtTheLimitWithoutAllocatingIt() throws {
        let bomb = Self.bomb()
        #expect(bomb.count < 200 * 1024)
        let limit = 1 << 20
        for frames in [[bomb], randomSplit(bomb, pieces: 5, seed: 1)] {
            let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: false)
            var output: [UInt8] = []
            var code: UInt16?
            do {
                for (index, frame) in frames.enumerated() {
                    try inflater.inflate(frame, isFinal: index == frames.count - 1, into: &output, limit: limit)
                }
            } catch {
                code = error.closeCode
            }
            #expect(code == 1009)
            #expect(output.count <= limit)
            #expect(output.capacity <= limit + PerMessageInflater.chunkSize)
            #expect(!inflater.holdsZlibState, "a failed connection's zlib state is freed at once")
        }
    }

    @Test func limitIsInclusive() throws {
        let message = TestData.compressible(100_000, seed: 4)
        let compressed = PerMessageDeflater(windowBits: 15, noContextTakeover: true).compress(message)
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: true)
        #expect(try inflater.inflateMessage(compressed, limit: message.count) == message)
        do {
            let code = closeCode { _ = try inflater.inflateMessage(compressed, limit: message.count - 1) }
            #expect(code == 1009)
        }
    }

    @Test func corruptDataFailsWith1007() throws {
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: false)
        // BTYPE 11 is reserved (RFC 1951 §3.2.3).
        do {
            let code = closeCode { _ = try inflater.inflateMessage([0xFF, 0xFF, 0xFF, 0xFF]) }
            #expect(code == 1007)
        }
        // A stored block whose NLEN is not the complement of LEN.
        do {
            let code = closeCode { _ = try inflater.inflateMessage(TestData.hex("00 05 00 00 00 48 65 6c 6c 6f")) }
            #expect(code == 1007)
        }
        #expect(!inflater.holdsZlibState)
        // The inflater is usable again afterwards (fresh state).
        #expect(try inflater.inflateMessage(TestData.hex("f2 48 cd c9 c9 07 00")) == Array("Hello".utf8))
    }

    @Test func truncatedMessageFailsWith1007() {
        let message = TestData.random(4000, seed: 11)
        let compressed = PerMessageDeflater(windowBits: 15, noContextTakeover: true).compress(message)
        // Cut inside the stored block: the appended tail cannot complete it.
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: true)
        do {
            let code = closeCode { _ = try inflater.inflateMessage(Array(compressed.prefix(2000))) }
            #expect(code == 1007)
        }
    }

    @Test func idleInflaterHoldsNoStateWithoutContextTakeover() throws {
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: true)
        #expect(!inflater.holdsZlibState)
        var output: [UInt8] = []
        let frames = randomSplit(PerMessageDeflater(windowBits: 15, noContextTakeover: true).compress(TestData.compressible(5000, seed: 1)), pieces: 2, seed: 2)
        try inflater.inflate(frames[0], isFinal: false, into: &output, limit: 1 << 20)
        #expect(inflater.holdsZlibState == !frames[0].isEmpty, "state lives while a message is in flight")
        try inflater.inflate(frames[1], isFinal: true, into: &output, limit: 1 << 20)
        #expect(!inflater.holdsZlibState)
        #expect(output == TestData.compressible(5000, seed: 1))
    }
}
