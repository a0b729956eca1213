import Base64
import Testing
import TestSupport

/// RFC 4648 §10 test vectors: plain text, padded encoding (the URL alphabet's is the same here).
private let vectors: [(String, String)] = [
    ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
    ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
]

@Suite struct Base64PaddedStandardTests {
    @Test(arguments: vectors)
    func encodesRFC4648Vectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
    }

    @Test(arguments: vectors)
    func decodesRFC4648Vectors(plain: String, encoded: String) {
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func roundTripsAllByteValuesAndLengths() {
        var rng = SplitMix64(seed: 7)
        for length in 0..<70 {
            let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let encoded = Base64.encode(data)
            #expect(encoded.utf8.count == (length + 2) / 3 * 4)
            #expect(Base64.decode(encoded) == data)
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(all)) == all)
    }

    @Test(arguments: [
        "Zg", "Zg=", "Zm9", // missing padding
        "Zg==Zg==", "Z===", "=Zg=", "Zm=v", "====", "Zm9v====", // misplaced padding
        "Zm9v\n", " Zm9v", "Zm 9v", // whitespace
        "Zm9-", "Zm9_", "Zm9*", "Zé9v", // URL-safe alphabet and junk
        "Zh==", "Zm9=", // non-zero pad bits
    ])
    func rejectsNonCanonicalInput(_ input: String) {
        #expect(Base64.decode(input) == nil)
    }
}

@Suite struct Base64UnpaddedURLTests {
    // RFC 4648 §10 vectors, with the padding removed as JWS requires (RFC 7515 §2).
    @Test(arguments: vectors)
    func rfc4648Vectors(plain: String, padded: String) {
        let encoded = String(padded.filter { $0 != "=" })
        #expect(Base64.encode(Array(plain.utf8), alphabet: .url, padding: .unpadded) == encoded)
        #expect(Base64.decode(encoded, alphabet: .url, padding: .unpadded) == Array(plain.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        // 0xFB 0xFF 0xBF → "+/+/" in standard base64, "-_-_" in base64url.
        #expect(Base64.encode([0xFB, 0xFF, 0xBF]) == "+/+/")
        #expect(Base64.encode([0xFB, 0xFF, 0xBF], alphabet: .url, padding: .unpadded) == "-_-_")
        #expect(Base64.decode("-_-_", alphabet: .url, padding: .unpadded) == [0xFB, 0xFF, 0xBF])
        #expect(Base64.decode("+/+/", alphabet: .url, padding: .unpadded) == nil)
        #expect(Base64.decode("-_-_") == nil)
    }

    @Test func roundTripsRandomBytesOfEveryLengthUpTo100() {
        var rng = SplitMix64(seed: 11)
        for length in 0...100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
            let encoded = Base64.encode(bytes, alphabet: .url, padding: .unpadded)
            #expect(!encoded.contains("="))
            #expect(encoded.utf8.count == (length * 4 + 2) / 3)
            #expect(Base64.decode(encoded, alphabet: .url, padding: .unpadded) == bytes)
        }
    }

    @Test(arguments: ["Zg==", "Zm8=", "Z", "Zm9vY", "Zm9v\n", " Zm9v", "Zm 9v", "Zm9v.", "Zé9v"])
    func rejectsPaddingBadLengthsAndForeignCharacters(input: String) {
        #expect(Base64.decode(input, alphabet: .url, padding: .unpadded) == nil)
    }

    @Test func rejectsNonCanonicalTrailingBits() {
        // "Zg" is the only encoding of "f"; "Zh" decodes to the same byte with a stray low bit.
        #expect(Base64.decode("Zh", alphabet: .url, padding: .unpadded) == nil)
        #expect(Base64.decode("Zm9", alphabet: .url, padding: .unpadded) == nil)  // canonical form of "fo" is "Zm8"
        #expect(Base64.decode("Zm8", alphabet: .url, padding: .unpadded) == Array("fo".utf8))
    }
}

@Suite struct Base64OtherCombinationsTests {
    @Test func urlAlphabetPaddedAndStandardAlphabetUnpadded() {
        #expect(Base64.encode([0xFB, 0xFF], alphabet: .url, padding: .padded) == "-_8=")
        #expect(Base64.decode("-_8=", alphabet: .url, padding: .padded) == [0xFB, 0xFF])
        #expect(Base64.decode("-_8", alphabet: .url, padding: .padded) == nil)
        #expect(Base64.encode([0xFB, 0xFF], padding: .unpadded) == "+/8")
        #expect(Base64.decode("+/8", padding: .unpadded) == [0xFB, 0xFF])
        #expect(Base64.decode("+/8=", padding: .unpadded) == nil)
    }
}
