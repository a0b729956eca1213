import Testing
import WebSocketCodec
@testable import WebSocketDeflate

/// The worked examples of RFC 7692 §7.2.3 (frame payloads only, headers stripped).
@Suite struct RFC7692ExampleTests {
    let hello = Array("Hello".utf8)

    @Test func helloCompressesToTheRFCBytes() {  // §7.2.3.1
        let deflater = PerMessageDeflater(windowBits: 15, noContextTakeover: true)
        #expect(deflater.compress(hello) == TestData.hex("f2 48 cd c9 c9 07 00"))
        #expect(deflater.compress(hello) == TestData.hex("f2 48 cd c9 c9 07 00"))
    }

    @Test func singleAndFragmentedHelloInflate() throws {  // §7.2.3.1
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try inflater.inflateMessage(TestData.hex("f2 48 cd c9 c9 07 00")) == hello)
        #expect(try inflater.inflateMessage([TestData.hex("f2 48 cd"), TestData.hex("c9 c9 07 00")]) == hello)
    }

    @Test func sharedSlidingWindowSecondMessage() throws {  // §7.2.3.2
        let deflater = PerMessageDeflater(windowBits: 15, noContextTakeover: false)
        #expect(deflater.compress(hello) == TestData.hex("f2 48 cd c9 c9 07 00"))
        #expect(deflater.compress(hello) == TestData.hex("f2 00 11 00 00"))

        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try inflater.inflateMessage(TestData.hex("f2 48 cd c9 c9 07 00")) == hello)
        #expect(try inflater.inflateMessage(TestData.hex("f2 00 11 00 00")) == hello)
    }

    @Test func secondMessageWithoutTheWindowIsCorrupt() {
        // The back-reference of §7.2.3.2 points before the start of a fresh window.
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: true)
        do {
            let code = closeCode { _ = try inflater.inflateMessage(TestData.hex("f2 00 11 00 00")) }
            #expect(code == 1007)
        }
    }

    @Test func storedBlock() throws {  // §7.2.3.3
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: true)
        #expect(try inflater.inflateMessage(TestData.hex("00 05 00 fa ff 48 65 6c 6c 6f 00")) == hello)
    }

    @Test func finalBlockKeepsTheWindowForTheNextMessage() throws {  // §7.2.3.4
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try inflater.inflateMessage(TestData.hex("f3 48 cd c9 c9 07 00 00")) == hello)
        #expect(try inflater.inflateMessage(TestData.hex("f2 00 11 00 00")) == hello)
        // A sender that stops right after the BFINAL block (no trailing empty block) is tolerated.
        #expect(try inflater.inflateMessage(TestData.hex("f3 48 cd c9 c9 07 00")) == hello)
        #expect(try inflater.inflateMessage(TestData.hex("f2 00 11 00 00")) == hello)
    }

    @Test func twoBlocksInOneMessage() throws {  // §7.2.3.5
        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: true)
        #expect(try inflater.inflateMessage(TestData.hex("f2 48 05 00 00 00 ff ff ca c9 c9 07 00")) == hello)
    }

    @Test func emptyMessage() throws {  // §7.2.3.6
        let deflater = PerMessageDeflater(windowBits: 15, noContextTakeover: false)
        #expect(deflater.compress([]) == [0x00])
        #expect(!deflater.holdsZlibState, "an empty message must not allocate zlib state")
        _ = deflater.compress(hello)
        #expect(deflater.compress([]) == [0x00])
        #expect(deflater.compress(hello) == TestData.hex("f2 00 11 00 00"), "the empty message leaves the window intact")

        let inflater = PerMessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try inflater.inflateMessage([0x00]) == [])
        #expect(try inflater.inflateMessage([[]]) == [], "an empty payload is just the appended tail")
        #expect(try inflater.inflateMessage([[], [], [0x00]]) == [])
    }
}
