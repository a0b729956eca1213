import Auth
import Testing

/// SHA-256 against the FIPS 180-2 vectors, as raw bytes and as the lowercase hex the store keeps.
@Suite struct SecretDigestTests {
    @Test func digestsMatchTheStandardVectors() {
        #expect(SecretDigest.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SecretDigest.sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SecretDigest.sha256Hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SecretDigest.sha256(Array("abc".utf8)).prefix(4) == [0xba, 0x78, 0x16, 0xbf])
    }
}
