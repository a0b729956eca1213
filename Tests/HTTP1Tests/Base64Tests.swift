import Testing
@testable import HTTP1

@Suite struct Base64Tests {
    /// RFC 4648 §10 test vectors.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

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
        "Zg==Zg==", "Z===", "=Zg=", "Zm=v", // misplaced padding
        "Zm9v\n", " Zm9v", "Zm 9v", // whitespace
        "Zm9-", "Zm9_", "Zm9*", // URL-safe alphabet and junk
        "Zh==", "Zm9=", // non-zero pad bits
    ])
    func rejectsNonCanonicalInput(_ input: String) {
        #expect(Base64.decode(input) == nil)
    }
}
