import Auth
import Testing

@Suite struct Base64URLTests {
    // RFC 4648 §10 vectors, with the padding removed as JWS requires (RFC 7515 §2).
    @Test(arguments: [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
                      ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        // 0xFB 0xFF 0xBF → "+/+/" in standard base64, "-_-_" in base64url.
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
        #expect(Base64URL.decode("+/+/") == nil)
    }

    @Test func roundTripsRandomBytesOfEveryLengthUpTo100() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("="))
            #expect(Base64URL.decode(encoded) == bytes)
        }
    }

    @Test(arguments: ["Zg==", "Zm8=", "Z", "Zm9vY", "Zm9v\n", " Zm9v", "Zm 9v", "Zm9v.", "Zé9v"])
    func rejectsPaddingBadLengthsAndForeignCharacters(input: String) {
        #expect(Base64URL.decode(input) == nil)
    }

    @Test func rejectsNonCanonicalTrailingBits() {
        // "Zg" is the only encoding of "f"; "Zh" decodes to the same byte with a stray low bit.
        #expect(Base64URL.decode("Zh") == nil)
        #expect(Base64URL.decode("Zm9") == nil)  // canonical form of "fo" is "Zm8"
        #expect(Base64URL.decode("Zm8") == Array("fo".utf8))
    }
}

@Suite struct ConstantTimeTests {
    /// Counts how many elements were read, to prove the comparison does not stop early.
    final class CountingBytes: Collection {
        let storage: [UInt8]
        var reads = 0
        init(_ storage: [UInt8]) { self.storage = storage }
        var startIndex: Int { storage.startIndex }
        var endIndex: Int { storage.endIndex }
        func index(after i: Int) -> Int { i + 1 }
        subscript(position: Int) -> UInt8 {
            reads += 1
            return storage[position]
        }
    }

    @Test func equalAndUnequalValues() {
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([0, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([UInt8](), [0]))
    }

    @Test func readsEveryByteEvenWhenTheFirstDiffers() {
        let expected = [UInt8](repeating: 0xAA, count: 32)
        for position in [0, 1, 16, 31] {
            var guess = expected
            guess[position] ^= 0xFF
            let counted = CountingBytes(guess)
            #expect(!ConstantTime.equals(expected, counted))
            #expect(counted.reads == 32, "stopped after \(counted.reads) bytes for a difference at \(position)")
        }
    }

    @Test func everySingleBitFlipIsDetected() {
        let value: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        for byte in 0..<32 {
            for bit in 0..<8 {
                var flipped = value
                flipped[byte] ^= 1 << bit
                #expect(!ConstantTime.equals(value, flipped))
            }
        }
    }
}
