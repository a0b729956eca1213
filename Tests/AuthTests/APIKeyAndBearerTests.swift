import Auth
import Testing

@Suite struct APIKeySetTests {
    @Test func matchesByNameAndRejectsEverythingElse() {
        let keys = APIKeySet(keys: ["billing": "sk_live_4f9a2c", "chat-backend": "sk_live_77b1e0", "unset": ""])
        #expect(keys.count == 2)
        #expect(keys.match("sk_live_4f9a2c") == "billing")
        #expect(keys.match("sk_live_77b1e0") == "chat-backend")
        #expect(keys.match("sk_live_4f9a2") == nil)
        #expect(keys.match("sk_live_4f9a2c ") == nil)
        #expect(keys.match("SK_LIVE_4F9A2C") == nil)
        #expect(keys.match("") == nil)
    }

    @Test func digestsAreSHA256AndCanBeConfiguredDirectly() throws {
        // FIPS 180-2 appendix B.1 test vector.
        let abc = APIKeySet.digest("abc").map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        #expect(abc == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let keys = try APIKeySet(sha256Digests: ["ops": APIKeySet.digest("k-ops-123")])
        #expect(keys.match("k-ops-123") == "ops")
        #expect(keys.match("k-ops-124") == nil)
        #expect(throws: JWTError.self) { try APIKeySet(sha256Digests: ["short": [1, 2, 3]]) }
    }
}

@Suite struct BearerTokenTests {
    @Test func extractsTheCredential() {
        #expect(BearerToken.parse(authorization: "Bearer abc.def-ghi_jkl") == "abc.def-ghi_jkl")
        #expect(BearerToken.parse(authorization: "bearer abc") == "abc")
        #expect(BearerToken.parse(authorization: "BEARER   a+b/c==") == "a+b/c==")
    }

    @Test(arguments: ["Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearerabc", "Bearer a b", "Bearer a,b",
                      "Bearer =abc", "Bearer ab=c", "Token abc", "Bearer\tabc", "Bearer é"])
    func rejectsOtherSchemesAndBadTokens(value: String) {
        #expect(BearerToken.parse(authorization: value) == nil)
    }

    @Test func rejectsOverlongTokens() {
        let long = String(repeating: "a", count: BearerToken.maximumLength)
        #expect(BearerToken.parse(authorization: "Bearer " + long) == long)
        #expect(BearerToken.parse(authorization: "Bearer " + long + "a") == nil)
    }
}
