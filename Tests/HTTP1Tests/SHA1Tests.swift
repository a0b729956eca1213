import Testing
@testable import HTTP1

@Suite struct SHA1Tests {
    static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }

    /// RFC 3174 §7.3 test cases (plus the empty string from FIPS 180 examples).
    @Test(arguments: [
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ])
    func matchesKnownDigests(input: String, digest: String) {
        #expect(Self.hex(SHA1.hash(Array(input.utf8))) == digest)
    }

    @Test func rfc3174MillionAs() {
        let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Self.hex(SHA1.hash(input)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func rfc3174RepeatedPattern() {
        // TEST4: "01234567" * 8 repeated 10 times.
        let input = Array(String(repeating: "0123456701234567012345670123456701234567012345670123456701234567", count: 10).utf8)
        #expect(Self.hex(SHA1.hash(input)) == "dea356a2cddd90c7a7ecedc5ebb563934f460452")
    }

    @Test func paddingBoundariesDifferAndAreStable() {
        // 55, 56, 63, 64, 65 bytes straddle the one-vs-two-block padding boundary.
        let digests = [55, 56, 63, 64, 65].map { SHA1.hash([UInt8](repeating: 0x61, count: $0)) }
        #expect(Set(digests.map(Self.hex)).count == 5)
        #expect(digests.allSatisfy { $0.count == 20 })
        #expect(Self.hex(SHA1.hash([UInt8](repeating: 0x61, count: 64)))
            == "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }
}
